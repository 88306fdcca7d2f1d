import Synchronization
/// Where a ``SIPFlow`` connects: a line's server and transport.
public struct FlowTarget: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    /// nil = the transport's default port.
    public var port: UInt16?
    public var transport: TransportKind

    public init(host: String, port: UInt16? = nil, transport: TransportKind) {
        self.host = host
        self.port = port
        self.transport = transport
    }

    public var description: String { "\(transport.rawValue)://\(host):\(port ?? transport.defaultPort)" }
}

/// What the layers above need to know about an established flow.
public struct FlowInfo: Sendable, Hashable {
    public var transport: TransportKind
    public var local: SocketAddress?
    public var remote: SocketAddress
    /// False for UDP: the transaction layer must retransmit (RFC 3261 §17.1.1.2).
    public var isReliable: Bool { transport.isReliable }
    /// The Via `sent-by` for requests on this flow: `ip:port` of the local socket, or for
    /// WS/WSS a random `.invalid` host (RFC 7118 §5.2).
    public var viaSentBy: String
    /// The host to put in a Contact URI on this flow (RFC 7118 §5.2: the same `.invalid` host).
    public var contactHost: String
    /// When the connection (with its TLS and WebSocket handshakes) was up, on the trace's clock.
    public var connectedAt: WireTime?
    /// TLS and WSS: the server certificate's notAfter, seconds since the epoch (RFC 5280
    /// §4.1.2.5); nil on other transports.
    public var serverCertificateNotAfter: Int?

    public init(
        transport: TransportKind, local: SocketAddress?, remote: SocketAddress, viaSentBy: String, contactHost: String
    ) {
        self.transport = transport
        self.local = local
        self.remote = remote
        self.viaSentBy = viaSentBy
        self.contactHost = contactHost
    }
}

/// One established connection as ``SIPFlow`` sees it (a ``StreamConnection``, UDP to one
/// server, or a test double).
public protocol FlowConnection: Sendable {
    var transport: TransportKind { get }
    var remote: SocketAddress { get }
    var local: SocketAddress? { get }
    /// Messages, then `.closed` as the last event.
    var events: AsyncStream<ConnectionEvent> { get }
    func send(_ message: [UInt8]) async throws(TransportError)
    /// Sends `message` now, without suspending, when the connection can (UDP); false when
    /// nothing was sent and `send(_:)` must be used. Default: false.
    func sendImmediately(_ message: [UInt8]) -> Bool
    /// From now on, hands every received message straight to `handler` (on the transport's
    /// queue, in order) instead of ``events``; `.closed` still comes through ``events``. False
    /// when the connection cannot (the default); messages then keep coming through ``events``.
    func deliverMessages(to handler: @escaping @Sendable (ReceivedMessage) -> Void) -> Bool
    /// From now on, hands every event (messages not taken by ``deliverMessages(to:)``, then
    /// `.closed`) to `handler` — synchronously, in order, so it must only pass it on — instead
    /// of ``events``; those that came before go first. False when the connection cannot (the
    /// default): read ``events``.
    func deliverEvents(to handler: @escaping @Sendable (ConnectionEvent) -> Void) -> Bool
    /// TLS: the server certificate's notAfter (seconds since the epoch); nil otherwise (the default).
    var serverCertificateNotAfter: Int? { get }
    func close() async
}

extension FlowConnection {
    public var serverCertificateNotAfter: Int? { nil }
    public func sendImmediately(_ message: [UInt8]) -> Bool { false }
    public func deliverMessages(to handler: @escaping @Sendable (ReceivedMessage) -> Void) -> Bool { false }
    public func deliverEvents(to handler: @escaping @Sendable (ConnectionEvent) -> Void) -> Bool { false }
}

/// A message handler that can be installed after the socket started reading (held by class
/// reference, so loading it per message costs no closure re-abstraction).
final class MessageHandlerBox: Sendable {
    final class Handler: Sendable {
        let call: @Sendable (ReceivedMessage) -> Void
        init(_ call: @escaping @Sendable (ReceivedMessage) -> Void) { self.call = call }
    }
    let current = Mutex<Handler?>(nil)
}

extension StreamConnection: FlowConnection {
    public nonisolated func deliverEvents(to handler: @escaping @Sendable (ConnectionEvent) -> Void) -> Bool {
        eventSink.redirect(to: handler)
    }
}

/// UDP to one server as a flow: it never dies by itself (RFC 5626 §4.4.2 STUN keep-alive is
/// not implemented), and only messages from that server are delivered.
package final class UDPFlowConnection: FlowConnection {
    public let transport = TransportKind.udp
    public let remote: SocketAddress
    public var local: SocketAddress? { udp.local }
    public let events: AsyncStream<ConnectionEvent>
    private let udp: UDPTransport
    private let sink: AsyncStream<ConnectionEvent>.Continuation
    private let direct: MessageHandlerBox

    public init(remote: SocketAddress, trace: SIPTrace? = nil, log: TransportLog = .standardError())
        throws(TransportError)
    {
        let any = SocketAddress(ip: remote.isIPv6 ? "::" : "0.0.0.0", port: 0)!
        let (events, sink) = AsyncStream.makeStream(of: ConnectionEvent.self)
        let direct = MessageHandlerBox()
        // Messages from the server go straight from the socket's queue into `events` (or to the
        // handler installed by ``deliverMessages(to:)``).
        let udp = try UDPTransport(local: Socket.sourceAddress(toward: remote) ?? any, trace: trace, log: log) {
            message in
            guard message.remote == remote else { return }
            if let handler = direct.current.withLock({ $0 }) {
                handler.call(message)
            } else {
                sink.yield(.message(message))
            }
        }
        self.direct = direct
        self.udp = udp
        self.remote = remote
        self.events = events
        self.sink = sink
    }

    deinit { sink.finish() }

    public func send(_ message: [UInt8]) async throws(TransportError) {
        try await udp.send(message, to: remote)
    }

    public func sendImmediately(_ message: [UInt8]) -> Bool {
        udp.sendImmediately(message, to: remote)
    }

    public func deliverMessages(to handler: @escaping @Sendable (ReceivedMessage) -> Void) -> Bool {
        let box = MessageHandlerBox.Handler(handler)
        direct.current.withLock { $0 = box }
        return true
    }

    public func close() async {
        await udp.close()
        sink.yield(.closed(TransportError(.closed, transport: .udp, peer: remote.description, "socket closed")))
        sink.finish()
    }
}
