import SIPCore

/// How a line registers (RFC 3261 §10, RFC 5626, RFC 8599). Every interval is configuration.
public struct RegistrationSettings: Sendable, Hashable {
    /// The expiry we ask for (RFC 3261 §10.2.1.1); sent as it is unless ``expiresBounds`` is set.
    public var requestedExpires: UInt32 = 300
    /// An explicit policy clamping the request (e.g. a line plan's 30…300 s). Nil by default: a
    /// verification tool sends what it is asked, so the registrar's own answer — a 423 with
    /// Min-Expires or a shorter granted expiry (§10.2.8, §10.3 step 7) — is what gets seen.
    /// A 423 Min-Expires above the policy's cap is still honoured.
    public var expiresBounds: ClosedRange<UInt32>?
    /// A refresh is sent no later than the granted expiry minus this margin (and no earlier than
    /// half of it), so a refresh that needs a digest round trip still lands in time.
    public var refreshMargin: Duration = .seconds(10)
    /// First retry delay after a failed registration when ``retryOnFailure`` is set; doubles per
    /// failure up to ``retryMaximum`` and is jittered to 50–100 % (RFC 5626 §4.5).
    public var retryBase: Duration = .seconds(2)
    public var retryMaximum: Duration = .seconds(300)
    /// Keep trying after failures (the `--keep` mode); one-shot verification turns it off.
    public var retryOnFailure: Bool = false
    /// RFC 5626 §4.1 `+sip.instance` (a `urn:uuid:…` URN, without the angle brackets).
    public var instanceID: String?
    /// RFC 5626 §4.2 `reg-id`; only sent together with ``instanceID``.
    public var regID: UInt32?
    /// RFC 8599 §4.1.1 push parameters added to the Contact URI.
    public var push: PushParameters?
    /// `User-Agent` header value.
    public var userAgent: String = AstraVersion.product()

    public init() {}

    /// The expiry actually requested: ``requestedExpires``, clamped to ``expiresBounds`` if set.
    public var clampedExpires: UInt32 {
        guard let bounds = expiresBounds else { return requestedExpires }
        return min(max(requestedExpires, bounds.lowerBound), bounds.upperBound)
    }

    /// When to refresh a binding granted for `granted` seconds: at most `granted − margin`,
    /// at least `granted / 2`, and never later than 90 % of it.
    public func refreshDelay(granted: UInt32) -> Duration {
        let grantedDuration = Duration.seconds(Int64(granted))
        let latest = min(grantedDuration * 9 / 10, grantedDuration - refreshMargin)
        return max(latest, grantedDuration / 2)
    }
}

/// RFC 8599 §4.1.1 push notification parameters for the Contact URI of a REGISTER.
public struct PushParameters: Sendable, Hashable {
    /// `pn-provider`, e.g. `apns`.
    public var provider: String
    /// `pn-prid`: the device token. A secret: never logged in clear.
    public var prid: String
    /// `pn-param`, e.g. `<TeamID>.<BundleID>.voip` for APNs VoIP pushes.
    public var param: String?

    public init(provider: String, prid: String, param: String? = nil) {
        self.provider = provider
        self.prid = prid
        self.param = param
    }
}

extension PushParameters: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "PushParameters(provider: \(provider), prid: <redacted>, param: \(param ?? "-"))" }
    public var debugDescription: String { description }
}
