/// What APNs does with a request or a reconnect.
public enum APNsAction: Sendable, Hashable {
    /// Refused with an HTTP error; nothing reaches the phone.
    case reject(APNsRejection)
    /// Accepted; delivered to the device after `afterMs`.
    case deliver(push: Int32, afterMs: Int64)
    /// Accepted while the device is offline; kept as the latest push for the topic.
    case store(push: Int32)
    /// Accepted while offline with `apns-expiration: 0`: dropped, never delivered.
    case drop(push: Int32)
    /// Accepted for an online device and never delivered (best effort: ``EmulatorSettings/apnsLossPercent``).
    case lose(push: Int32)
    /// Nothing to do.
    case none
}

/// APNs as the emulator sees it: header checks, delivery delay, loss, and store-latest-per-topic.
///
/// States (per topic): *empty*, or *holding* one stored push with its expiry. Apple: "APNs stores
/// only the most recent notification per app"; expiration 0 means "deliver once or not at all" —
/// except that in the field an expired push to an offline device was seen delivered 20–30 s later
/// (``EmulatorSettings/expiredLateDeliveryPercent``, 0 in the ideal model). Delays are drawn
/// independently per push, so a later push can overtake an earlier one, as reported (docs/push-wake-rules.md
/// "Delivery in the field"). Randomness comes from the model's own seeded generator.
public struct APNsModel: Sendable {
    /// The app's bundle id; the only accepted VoIP topic is `bundleID + ".voip"`.
    public var bundleID: String
    /// The environment this APNs endpoint serves.
    public var environment: APNsEnvironment
    var delay: DelayDistribution
    var lossPercent: Double
    var lateDeliveryPercent: Double
    var lateDeliveryWindowMs: Int64
    var maxPayloadBytes: Int
    var rng: SplitMix64
    /// The stored push (index) and the virtual time it expires, if any.
    public private(set) var stored: (push: Int32, expiresAt: Int64)?

    /// `seed` drives the delay, loss and late-delivery draws (none are drawn by the ideal model).
    public init(bundleID: String, environment: APNsEnvironment, settings: EmulatorSettings, seed: UInt64 = 0x5EED) {
        self.bundleID = bundleID
        self.environment = environment
        delay = settings.apnsDelay
        lossPercent = settings.apnsLossPercent
        lateDeliveryPercent = settings.expiredLateDeliveryPercent
        lateDeliveryWindowMs = settings.expiredLateDeliveryWindowMs
        maxPayloadBytes = settings.maxVoIPPayloadBytes
        rng = SplitMix64(seed: seed)
    }

    /// `true` with probability `percent` / 100; draws nothing when the percentage is 0 or 100.
    mutating func chance(_ percent: Double) -> Bool {
        guard percent > 0 else { return false }
        guard percent < 100 else { return true }
        return Double(rng.next() >> 11) / 9_007_199_254_740_992 * 100 < percent
    }

    /// How long the next delivery takes.
    mutating func deliveryDelay() -> Int64 { delay.sample(using: &rng) }

    /// A request arrives. `tokenValid`: the token is the device's current, non-invalidated token.
    public mutating func submit(
        _ request: APNsRequest, push: Int32, now: Int64, tokenValid: Bool,
        tokenEnvironment: APNsEnvironment, deviceOnline: Bool
    ) -> APNsAction {
        if request.pushType != "voip" { return .reject(.invalidPushType) }
        if request.topic != bundleID + ".voip" { return .reject(.badTopic) }
        if request.priority != 10 { return .reject(.badPriority) }
        if request.payloadBytes > maxPayloadBytes { return .reject(.payloadTooLarge) }
        if tokenEnvironment != environment { return .reject(.badDeviceToken) }
        if !tokenValid { return .reject(.unregistered) }
        if deviceOnline {
            if chance(lossPercent) { return .lose(push: push) }
            return .deliver(push: push, afterMs: deliveryDelay())
        }
        if request.expirationSeconds == 0 {
            guard chance(lateDeliveryPercent) else { return .drop(push: push) }
            stored = (push, now + lateDeliveryWindowMs)
            return .store(push: push)
        }
        stored = (push, now + Int64(request.expirationSeconds) * 1_000)
        return .store(push: push)
    }

    /// The device reconnects: deliver the stored push unless it expired.
    public mutating func deviceCameOnline(now: Int64) -> APNsAction {
        guard let held = stored else { return .none }
        stored = nil
        if now > held.expiresAt { return .drop(push: held.push) }
        return .deliver(push: held.push, afterMs: deliveryDelay())
    }
}
