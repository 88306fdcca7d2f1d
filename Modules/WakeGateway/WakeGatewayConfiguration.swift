import PushKitEmu
import SIPTransport

/// Everything `astra-wakegw` can set. Timeouts default to PushKitEmu's ``EmulatorSettings`` so
/// the live gateway and the virtual emulator decide with the same numbers.
public struct WakeGatewayConfiguration: Sendable {
    /// The gateway's SIP address (UDP) — Kamailio's `KAMAILIO_WAKE_GATEWAY`.
    public var sipHost = "127.0.0.1"
    public var sipPort: UInt16 = 5070
    /// Where Kamailio listens (UDP): released INVITEs, qualifies and CANCELs go there, marked.
    public var kamailio = SocketAddress(ip: "127.0.0.1", port: 5060)!
    /// HTTP API port (token endpoints, push ack); 0 = any.
    public var httpPort: UInt16 = 8088
    /// APNs emulator device port (phones connect here); 0 = any.
    public var apnsDevicePort: UInt16 = 2197
    /// APNs → device delivery delay (models APNs latency).
    public var apnsDelayMs: Int64 = 0
    /// Environment of RFC 8599 registrations (the Contact carries no environment).
    public var pnEnvironment: APNsEnvironment = .sandbox
    /// When set, failover forwards the held INVITE here (e.g. `sip:1099@127.0.0.1`, voicemail)
    /// instead of answering 480.
    public var failoverURI: String?
    /// Announce a caller who left after the ack but before the release to the woken phone (our
    /// extension to v2, PushKitEmu's `gone_notice`): with the fresh REGISTER, the held INVITE is
    /// released and CANCELled at once, so the phone ends its CallKit placeholder `remoteEnded`
    /// instead of at its timeout (docs/wake-gateway.md "Gone notice", D12). Off by default.
    public var goneNotice = false
    /// Wake decision timeouts (ack window, register wait, qualify timeout, ring timeout).
    public var decision = EmulatorSettings()

    public init() {}

    public var ackWindowMs: Int64 {
        get { decision.ackWindowMs }
        set { decision.ackWindowMs = newValue }
    }
    public var registerWaitMs: Int64 {
        get { decision.registerWaitMs }
        set { decision.registerWaitMs = newValue }
    }
    public var qualifyTimeoutMs: Int64 {
        get { decision.qualifyTimeoutMs }
        set { decision.qualifyTimeoutMs = newValue }
    }
    /// INVITE sent to the phone without a final answer → CANCEL and fail over.
    public var ringTimeoutMs: Int64 {
        get { decision.inviteTimeoutMs }
        set { decision.inviteTimeoutMs = newValue }
    }
}

/// One line of the gateway's timeline (`astra-wakegw` prints it as JSON with `event` and `t`).
public struct WakeEvent: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        case string(String)
        case int(Int64)
        case bool(Bool)
    }

    public var name: String
    public var fields: [Field]

    public struct Field: Sendable, Hashable {
        public var key: String
        public var value: Value
    }

    public init(_ name: String, _ fields: [(String, Value)]) {
        self.name = name
        self.fields = fields.map { Field(key: $0.0, value: $0.1) }
    }

    public subscript(key: String) -> Value? { fields.first { $0.key == key }?.value }
}

/// A gateway start-up failure (a port in use, …), one line.
public struct WakeGatewayError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
