import SIPCore

/// Settings for opening and running one flow.
public struct ConnectionOptions: Sendable {
    /// TCP connect timeout per resolved address.
    public var connectTimeout: Duration = .seconds(10)
    /// TLS + WebSocket handshakes must finish within this.
    public var handshakeTimeout: Duration = .seconds(10)
    /// TLS, WSS: the server must send its first byte (a ServerHello) within this (bounded by
    /// ``handshakeTimeout``). A plain WS or TCP port reads our ClientHello as a request line and
    /// waits for more: without this bound that looks like a silent server until the timeout.
    public var tlsAnswerTimeout: Duration = .seconds(3)
    /// The closing handshake (WebSocket Close ↔ Close, TLS close_notify, the server's FIN) may
    /// wait this long for the peer before the socket is closed anyway (RFC 6455 §7.1.1).
    public var closeTimeout: Duration = .seconds(2)
    public var tls = TLSOptions()
    /// RFC 7118: the WebSocket resource path (a line's `ws_path`).
    public var webSocketPath = "/ws"
    /// `Origin` header for the WebSocket handshake (RFC 6455 §4.1 item 8), if any.
    public var webSocketOrigin: String?
    /// Largest SIP message (and WebSocket message) accepted; bigger ones end the connection.
    public var maxMessageSize = 262_144
    /// RFC 5626 §4.4 keep-alive; nil disables it.
    public var keepAlive: KeepAliveConfiguration? = KeepAliveConfiguration()
    public var log: TransportLog = .standardError()
    /// `--sip-trace`: every SIP message sent and received.
    public var trace: SIPTrace?
    /// Where the keep-alive timer runs when many connections live in one process (a monitor's
    /// lines): one heap and one sleeping task for all instead of a task sleeping per connection.
    /// Nil: a task per connection on the connection's clock (tests drive it in virtual time).
    public var timers: LineTimers<ContinuousClock>?

    public init() {}

    /// SIPCore parser limits derived from ``maxMessageSize``.
    var parserLimits: SIPParserLimits {
        SIPParserLimits(maxHeaderSectionSize: min(65_536, maxMessageSize), maxBodySize: maxMessageSize)
    }
}

/// What a ``StreamConnection`` reports.
public enum ConnectionEvent: Sendable {
    /// One received SIP message.
    case message(ReceivedMessage)
    /// The connection ended (always the last event) and why: peer close, keep-alive
    /// timeout, protocol violation, local close.
    case closed(TransportError)
}
