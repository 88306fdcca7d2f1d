/// One SIP account — the shared, versioned "line" object every AstraSIP tool reads and writes
/// (TOOLS.md "The line"; schema in docs/line.md).
///
/// A value type with the fields exactly as given; the `effective…` properties apply the
/// documented defaults (port by transport, `ws_path` `/ws`, server = domain, auth user = user).
/// `description` and `dump` never show the password, the sealed password or a push token.
public struct Line: Sendable, Hashable {
    /// The schema version this build writes and the newest it reads.
    public static let currentVersion = 1
    /// Registration expiry when the line names none (RFC 3261 §10.2.1.1 suggests 3600 s).
    public static let defaultExpires = 3600
    /// The WebSocket resource path when `ws_path` is absent (Kamailio/Asterisk convention).
    public static let defaultWSPath = "/ws"

    /// `v`: schema version (1).
    public var version: Int
    /// `display_name`: the From display name, e.g. `Alice`.
    public var displayName: String?
    /// `user`: the user part of the address of record `sip:user@domain`.
    public var user: String
    /// `auth_user`: the digest username (RFC 3261 §22.4) when it differs from `user`.
    public var authUser: String?
    /// `password`: the digest password in clear. Mutually exclusive with ``sealedPassword``.
    public var password: String?
    /// `password_sealed`: the password sealed with a passphrase or key (docs/provisioning.md).
    public var sealedPassword: String?
    /// `domain`: the domain part of the address of record (the registrar's domain).
    public var domain: String
    /// `server`: where to connect, `host[:port]`; nil means the domain.
    public var server: LineServer?
    /// `transport`: udp, tcp, tls, ws or wss.
    public var transport: LineTransport
    /// `ws_path`: the WebSocket resource path for ws/wss (RFC 6455 §3).
    public var wsPath: String?
    /// `outbound_proxy`: an RFC 3261 §8.1.2 outbound proxy, `host[:port]`.
    public var outboundProxy: LineServer?
    /// `expires`: requested registration expiry in seconds.
    public var expires: Int?
    /// `ca_file`: PEM file of trusted CAs for tls/wss (system store when absent).
    public var caFile: String?
    /// `tls_verify`: false turns server certificate verification off (default true).
    public var tlsVerify: Bool?
    /// `tls_server_name`: SNI / name to verify when it differs from the server host.
    public var tlsServerName: String?
    /// `push_provider`: `apns` or `fcm`, for lines woken by push (RFC 8599 `pn-provider`).
    public var pushProvider: String?
    /// `push_token`: the device push token (RFC 8599 `pn-prid`); a secret, redacted in output.
    public var pushToken: String?
    /// `push_topic`: the push topic / bundle id (RFC 8599 `pn-param`).
    public var pushTopic: String?

    public init(
        version: Int = Line.currentVersion, displayName: String? = nil, user: String, authUser: String? = nil,
        password: String? = nil, sealedPassword: String? = nil, domain: String, server: LineServer? = nil,
        transport: LineTransport = .udp, wsPath: String? = nil, outboundProxy: LineServer? = nil,
        expires: Int? = nil, caFile: String? = nil, tlsVerify: Bool? = nil, tlsServerName: String? = nil,
        pushProvider: String? = nil, pushToken: String? = nil, pushTopic: String? = nil
    ) {
        self.version = version
        self.displayName = displayName
        self.user = user
        self.authUser = authUser
        self.password = password
        self.sealedPassword = sealedPassword
        self.domain = domain
        self.server = server
        self.transport = transport
        self.wsPath = wsPath
        self.outboundProxy = outboundProxy
        self.expires = expires
        self.caFile = caFile
        self.tlsVerify = tlsVerify
        self.tlsServerName = tlsServerName
        self.pushProvider = pushProvider
        self.pushToken = pushToken
        self.pushTopic = pushTopic
    }

    // MARK: Defaults applied

    /// The digest username: `auth_user`, else `user`.
    public var effectiveAuthUser: String { authUser ?? user }
    /// The host to connect to: `server`'s host, else `domain`.
    public var effectiveServerHost: String { server?.host ?? domain }
    /// The port to connect to: `server`'s port, else the transport's default (5060/5061/80/443).
    public var effectivePort: Int { server?.port ?? transport.defaultPort }
    /// The server as `host:port` with the default port filled in.
    public var effectiveServer: LineServer { LineServer(host: effectiveServerHost, port: effectivePort) }
    /// The WebSocket path for ws/wss (`ws_path`, else `/ws`); nil for other transports.
    public var effectiveWSPath: String? { transport.isWebSocket ? (wsPath ?? Line.defaultWSPath) : nil }
    /// `expires`, else 3600.
    public var effectiveExpires: Int { expires ?? Line.defaultExpires }
    /// Verify the server certificate unless `tls_verify` is false.
    public var effectiveTLSVerify: Bool { tlsVerify ?? true }
    /// True when the password is present in clear (not sealed, not absent).
    public var hasClearPassword: Bool { !(password ?? "").isEmpty }

    /// The address of record, `sip:user@domain` (RFC 3261 §10.2: the To of a REGISTER).
    public var addressOfRecord: LineAddressOfRecord {
        LineAddressOfRecord(secure: false, user: user, domain: domain)
    }
}
