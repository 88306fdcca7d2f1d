import AstraJSON
import HTTPLite
import JWT
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
    /// HTTP API address: loopback unless told otherwise — in a real deployment a TLS terminator
    /// on the network side forwards to it (docs/wake-gateway.md "Deployment").
    public var httpHost = "127.0.0.1"
    /// HTTP API port (token endpoints, push ack); 0 = any.
    public var httpPort: UInt16 = 8088
    /// APNs emulator device address (loopback unless told otherwise).
    public var apnsDeviceHost = "127.0.0.1"
    /// APNs emulator device port (phones connect here); 0 = any.
    public var apnsDevicePort: UInt16 = 2197
    /// Sources whose SIP requests and responses are accepted (`--trust`); empty = the Kamailio
    /// address only. Anything else is dropped and counted (``WakeGatewayServer/counters``).
    public var trusted: [TrustedSource] = []
    /// Bearer-token check of the token endpoints; nil = every token request is refused (401).
    public var auth: TokenAPIAuth?
    /// Per-user VoIP push cap.
    public var pushRateLimit = PushRateLimit()
    /// After APNs answers 429 TooManyRequests for a device token, no push to it for this long
    /// (the calls fail over at once instead).
    public var apnsBackoffMs: Int64 = 60_000
    /// HTTP API connection bounds.
    public var httpLimits = ConnectionLimits()
    /// APNs device port bounds: a hello must arrive within `headerTimeoutMs`; a device with its
    /// hello done stays connected (it waits for pushes), so its idle timeout is long.
    public var apnsDeviceLimits = ConnectionLimits(
        maxConnections: 4_096, maxPerPeer: 4_096, headerTimeoutMs: 5_000, idleTimeoutMs: 3_600_000)
    /// RFC 3261 T1 (ms): Timer A/G start at T1, double up to T2 = 8·T1, give up at 64·T1; a
    /// finished call's state is kept 64·T1 for retransmissions, then freed. 500 ms by default;
    /// smaller only on loopback tests.
    public var sipT1Ms: Int64 = 500
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
    /// This gateway's id among several (`--gateway-id`, ``GatewayID``): the suffix of its
    /// push-ids. nil: one gateway, push-ids without a suffix.
    public var gatewayID: String?
    /// `--sealed`: whether pushes carry the caller sealed under the phone's call key
    /// (docs/wake-gateway.md "Sealed push", ADR 0152).
    public var sealed = SealedMode.optional
    /// The name a call grant's `aud` must carry: ``gatewayID``, or ``defaultGrantAudience`` for a
    /// gateway without one.
    public var grantAudience: String { gatewayID ?? Self.defaultGrantAudience }
    /// The grant audience of a gateway started without `--gateway-id`.
    public static let defaultGrantAudience = "astra-wakegw"
    /// The other gateways' HTTP API addresses by id (`--peer ID=IP:PORT`): an ack for one of
    /// their push-ids is forwarded there, so a phone's ack reaches the gateway holding its call.
    public var peers: [String: SocketAddress] = [:]
    /// Wake decision timeouts (ack window, register wait, qualify timeout, ring timeout).
    public var decision = EmulatorSettings()

    // MARK: Push providers (docs/wake-gateway.md "Push providers", D34)

    /// APNs for sandbox tokens (`https://api.sandbox.push.apple.com`); nil = the emulator.
    public var apnsSandboxURL: String?
    /// APNs for production tokens (`https://api.push.apple.com`); nil = the emulator.
    public var apnsProductionURL: String?
    /// FCM HTTP v1 (`https://fcm.googleapis.com`); nil = the emulator.
    public var fcmURL: String?
    /// The team's APNs key (`.p8`, ES256) with its key id as ``JWTKey/keyID``. nil = a dev key
    /// made at start (only with the emulator: Apple would refuse it).
    public var apnsKey: JWTKey?
    /// Apple team id (`iss` of provider tokens; the emulator checks it).
    public var apnsTeamID = "ASTRATEAM1"
    /// The FCM service account. nil = a dev account made at start (emulator only).
    public var fcmAccount: FCMServiceAccount?
    /// CA file for the provider hosts (default: the system's; the in-process emulator's own
    /// certificate when every provider is the emulator).
    public var providerCAFile: String?
    /// `ttl` of FCM data messages (s): 0 = now or never, as `apns-expiration: 0` (R6).
    public var fcmTTLSeconds: Int64 = 0
    /// One provider request's limit (ms); retries of 5xx and network failures stay within half
    /// the ack window.
    public var providerTimeoutMs: Int64 = 2_000

    /// The emulator's listeners: APNs sandbox, APNs production, FCM (with its OAuth token
    /// endpoint); 0 = any port (the tool's defaults are fixed: 2196, 2198, 2199). Loopback unless
    /// told otherwise.
    public var emulatorHost = "127.0.0.1"
    public var apnsEmulatorPort: UInt16 = 0
    public var apnsEmulatorProductionPort: UInt16 = 0
    public var fcmEmulatorPort: UInt16 = 0
    /// `--provider-capture`: the emulator writes every push request it accepted here (JSON Lines,
    /// ``ProviderCapture``); nil = no capture.
    public var providerCapture: String?
    /// The emulator's TLS certificate chain and key (PEM); nil = a self-signed one made at start.
    public var emulatorCertFile: String?
    public var emulatorKeyFile: String?

    /// Whether any provider is the emulator (then it runs, with the device port).
    public var usesEmulator: Bool { apnsSandboxURL == nil || apnsProductionURL == nil || fcmURL == nil }

    public init() {}

    /// ``trusted``, or the Kamailio address when empty.
    public var trustedSources: [TrustedSource] {
        trusted.isEmpty ? [TrustedSource(ip: kamailio.ip, port: kamailio.port)] : trusted
    }

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

/// One line of the gateway's timeline (`astra-wakegw` prints it as JSON with `event` and `t`
/// first, then ``fields`` in order, through the tools' one encoder).
public struct WakeEvent: Sendable, Hashable {
    public var name: String
    /// The event's fields, in output order.
    public var fields: JSONObject

    public init(_ name: String, _ fields: JSONObject) {
        self.name = name
        self.fields = fields
    }

    /// Fields as a list of pairs, for events built up field by field.
    public init(_ name: String, _ fields: [(String, JSONValue)]) {
        self.init(name, JSONObject(fields.map { (key: $0.0, value: $0.1) }))
    }

    public subscript(key: String) -> JSONValue? { fields[key] }
}

/// A gateway start-up failure (a port in use, …), one line.
public struct WakeGatewayError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One trusted SIP source: an IP, and a port when the trust is that narrow. On a shared host
/// trust the port too — every local process shares 127.0.0.1, but only Kamailio holds its port.
public struct TrustedSource: Sendable, Hashable, CustomStringConvertible {
    public var ip: String
    public var port: UInt16?

    public init(ip: String, port: UInt16? = nil) {
        self.ip = ip
        self.port = port
    }

    /// `IP` or `IP:PORT` (IPv4), or nil.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, SocketAddress(ip: String(parts[0]), port: 0) != nil else {
            return nil
        }
        ip = String(parts[0])
        if parts.count == 2 {
            guard let port = UInt16(parts[1]), port > 0 else { return nil }
            self.port = port
        } else {
            port = nil
        }
    }

    public func matches(_ address: SocketAddress) -> Bool {
        address.ip == ip && (port == nil || port == address.port)
    }

    public var description: String { port.map { "\(ip):\($0)" } ?? ip }
}
