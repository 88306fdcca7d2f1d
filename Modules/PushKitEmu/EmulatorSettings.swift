/// Every timeout, latency and threshold of the emulator, in virtual milliseconds.
///
/// Each default names its source. Apple publishes neither the strike threshold nor CallKit's
/// action timeout: those are assumptions, made settings so a field measurement can replace them.
/// JSON scenario files may override any field (snake_case keys, see docs/pushkit-emulator.md).
public struct EmulatorSettings: Sendable, Hashable {
    // MARK: Server wake decision (docs/push-wake-rules.md "The server", v2)

    /// No push-ack within this window → failover. Product requirement: failover ≤ 3 s (v1 took
    /// 5–6 s); 2 s covers APNs latency + cold launch + one ack one-way with margin.
    public var ackWindowMs: Int64 = 2_000
    /// The bound the failover invariant checks (call start → failover). Product requirement ≤ 3 s.
    public var failoverBoundMs: Int64 = 3_000
    /// After the ack, how long to wait for the fresh REGISTER. OpenSIPS' push-notification default
    /// (6 s) per docs/push-wake-rules.md / RFC 8599 deployments.
    public var registerWaitMs: Int64 = 6_000
    /// On-demand qualify (OPTIONS) timeout before choosing push over direct ring. Assumption:
    /// 2× a 250 ms RTT budget; Asterisk's `qualify_timeout` default (3 s) is far too slow here.
    public var qualifyTimeoutMs: Int64 = 500
    /// INVITE without a final answer → CANCEL and fail over (the proxy's ring timeout). Default
    /// RFC 3261 §17.1.1.2 Timer B = 64·T1 = 32 s.
    public var inviteTimeoutMs: Int64 = 32_000
    /// Registration expiry cap (product: 300 s).
    public var expiryCapSeconds: Int = 300
    /// Registration expiry floor (product: 30 s; the app offers a picker).
    public var expiryFloorSeconds: Int = 30
    /// Expiry the reference client asks for; the server clamps it to [floor, cap].
    public var requestedExpirySeconds: Int = 600

    // MARK: APNs (Apple: "Sending notification requests to APNs")

    /// APNs → device delivery delay. Ideal default: a fixed 250 ms (assumption: typical sub-second
    /// delivery). ``withFieldDelivery()`` replaces it with the published field figures.
    public var apnsDelay: DelayDistribution = .fixed(250)
    /// Percent of accepted pushes to an online device that APNs never delivers (best effort, no
    /// SLA). Ideal default 0.
    public var apnsLossPercent: Double = 0
    /// Percent of `apns-expiration: 0` pushes to an offline device that APNs keeps anyway and
    /// delivers when the device reconnects within ``expiredLateDeliveryWindowMs`` (field report:
    /// delivered 20–30 s later, Apple developer forums 795610). Ideal default 0 (Apple's contract:
    /// dropped).
    public var expiredLateDeliveryPercent: Double = 0
    /// How long such an expired push is still delivered after it was sent (field report: 20–30 s).
    public var expiredLateDeliveryWindowMs: Int64 = 30_000
    /// VoIP payload limit: 5 KB (Apple: 5120 bytes for VoIP notifications).
    public var maxVoIPPayloadBytes: Int = 5_120

    // MARK: Network and device

    /// Phone ↔ server one-way latency (ack POST, REGISTER, INVITE, 200 OK, CANCEL). Assumption.
    public var networkOneWayMs: Int64 = 40
    /// Cold launch of a killed app into its push handler. Assumption (iOS cold start, ~0.5–1 s).
    public var launchFromKilled: DelayDistribution = .fixed(700)
    /// Resuming a suspended app into its push handler. Assumption.
    public var launchFromSuspended: DelayDistribution = .fixed(50)

    // MARK: iOS rules (docs/push-wake-rules.md R1–R6)

    /// R2: R1 failures before iOS stops delivering VoIP pushes. Apple publishes no number; docs/push-wake-rules.md
    /// asks for a setting defaulting to 3.
    public var strikeThreshold: Int = 3
    /// R4: whether `mustReport == false` waives R1 (the semantics are undocumented; configurable).
    public var mustReportFalseWaivesR1: Bool = true
    /// R5: placeholder without INVITE must end (`failed`) within this time. pjsip's sample: 10 s
    /// (liblinphone uses 15 s).
    public var placeholderTimeoutMs: Int64 = 10_000
    /// R5: CallKit fails an answer action not fulfilled in time. Apple documents no value
    /// (CXAction.timeoutDate is system-set); assumption 10 s.
    public var answerActionTimeoutMs: Int64 = 10_000
    /// R5/R6: a push older than this on arrival is "too late": report, then end at once. Defaults to
    /// the ack window: by then the server has already failed over.
    public var staleAfterMs: Int64 = 2_000

    // MARK: Reference client behaviour

    /// The naive policy's PushKit-session merge delay: the ~10 s answer delay seen with
    /// liblinphone's PushKit-created session (docs/push-wake-rules.md R5).
    public var naiveMergeDelayMs: Int64 = 10_000

    /// The documented defaults (the ideal, deterministic delivery model).
    public init() {}

    /// These settings with the field delivery model (docs/push-wake-rules.md "Delivery in the field";
    /// docs/decisions.md D21): APNs delay log-normal with median 622 ms and p95 2 000 ms — the
    /// log-normal whose mean is the reported ~800 ms and whose p95 is the reported ~2 s (Apple
    /// developer forums 825224); 1 % of pushes lost (assumption: APNs is best effort, no rate is
    /// published); 10 % of expired pushes to an offline device still delivered within 30 s of
    /// sending (assumption for the rate; the 20–30 s are forums 795610); cold launch log-normal
    /// median 700 ms / p95 1 500 ms and resume median 50 / p95 150 ms (assumptions around the
    /// ideal model's 700 / 50 ms). Every other setting is kept. Figures, not constants: each is
    /// a setting a scenario file or the command line can replace.
    public func withFieldDelivery() -> EmulatorSettings {
        var s = self
        s.apnsDelay = Self.fieldAPNsDelay
        s.apnsLossPercent = 1
        s.expiredLateDeliveryPercent = 10
        s.expiredLateDeliveryWindowMs = 30_000
        s.launchFromKilled = Self.fieldColdLaunch
        s.launchFromSuspended = .logNormal(medianMs: 50, p95Ms: 150)
        return s
    }

    /// The field APNs delay: log-normal, mean ≈ 800 ms, p95 = 2 000 ms (median 622 ms).
    public static let fieldAPNsDelay = DelayDistribution.logNormal(medianMs: 622, p95Ms: 2_000)
    /// The field cold launch of a killed app: log-normal, median 700 ms, p95 1 500 ms (assumption).
    public static let fieldColdLaunch = DelayDistribution.logNormal(medianMs: 700, p95Ms: 1_500)
}
