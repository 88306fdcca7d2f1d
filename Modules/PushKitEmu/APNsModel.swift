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
    /// Nothing to do.
    case none
}

/// APNs as the emulator sees it: header checks, delivery latency, and store-latest-per-topic.
///
/// States (per topic): *empty*, or *holding* one stored push with its expiry. Apple: "APNs stores
/// only the most recent notification per app"; expiration 0 means "deliver once or not at all".
public struct APNsModel: Sendable {
    /// The app's bundle id; the only accepted VoIP topic is `bundleID + ".voip"`.
    public var bundleID: String
    /// The environment this APNs endpoint serves.
    public var environment: APNsEnvironment
    var latencyMs: Int64
    var maxPayloadBytes: Int
    /// The stored push (index) and the virtual time it expires, if any.
    public private(set) var stored: (push: Int32, expiresAt: Int64)?

    public init(bundleID: String, environment: APNsEnvironment, settings: EmulatorSettings) {
        self.bundleID = bundleID
        self.environment = environment
        latencyMs = settings.apnsLatencyMs
        maxPayloadBytes = settings.maxVoIPPayloadBytes
    }

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
        if deviceOnline { return .deliver(push: push, afterMs: latencyMs) }
        if request.expirationSeconds == 0 { return .drop(push: push) }
        stored = (push, now + Int64(request.expirationSeconds) * 1_000)
        return .store(push: push)
    }

    /// The device reconnects: deliver the stored push unless it expired.
    public mutating func deviceCameOnline(now: Int64) -> APNsAction {
        guard let held = stored else { return .none }
        stored = nil
        if now > held.expiresAt { return .drop(push: held.push) }
        return .deliver(push: held.push, afterMs: latencyMs)
    }
}
