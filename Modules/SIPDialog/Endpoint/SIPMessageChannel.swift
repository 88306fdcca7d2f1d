import SIPCore
import SIPTransport

/// What the transaction layer needs from a transport: a flow that connects, carries SIP
/// messages both ways and reports its state (`SIPFlow` in production, a loopback with fault
/// injection in tests, CONVENTIONS.md §9).
public protocol SIPMessageChannel: Sendable {
    /// Connection state and received messages (`FlowEvent`).
    var events: AsyncStream<FlowEvent> { get }
    func start() async
    func send(_ message: [UInt8]) async throws(TransportError)
    /// Sends `message` at once without suspending when the transport can (UDP); false when
    /// nothing was sent and ``send(_:)`` must be used. Default: false.
    func sendImmediately(_ message: [UInt8]) -> Bool
    /// From now on hands every event to `handler` (synchronously, in order) instead of
    /// ``events``, so the endpoint parks no task on the stream; false when the channel cannot
    /// (the default): the endpoint reads ``events``.
    func deliverEvents(to handler: @escaping @Sendable (FlowEvent) -> Void) -> Bool
    func stop() async
}

extension SIPMessageChannel {
    public func sendImmediately(_ message: [UInt8]) -> Bool { false }
    public func deliverEvents(to handler: @escaping @Sendable (FlowEvent) -> Void) -> Bool { false }
}

extension SIPFlow: SIPMessageChannel {}

extension LocalBinding {
    /// Where we are reachable on a connected flow: the `.invalid` host on WebSocket flows
    /// (RFC 7118 §5.2), the local address and port otherwise.
    public init(flow info: FlowInfo) {
        let transport = SIPTransportProtocol(info.transport.viaToken)
        if info.transport.isWebSocket || info.local == nil {
            self.init(transport: transport, host: info.viaSentBy, port: nil)
        } else {
            let local = info.local!
            self.init(transport: transport, host: local.uriHost, port: local.port)
        }
    }
}
