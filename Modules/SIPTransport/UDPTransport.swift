import SIPCore
import Synchronization

/// SIP over UDP (RFC 3261 §18): one socket, many peers. Each datagram is one message;
/// `ReceivedMessage.remote` is the source address that RFC 3581 `received`/`rport` need, and
/// requests sent through it should carry `;rport` in their Via (RFC 3581 §3).
///
/// Unreliable: the transaction layer retransmits (RFC 3261 §17.1.1.2). Datagrams holding
/// only CRLF keep-alives are dropped, unparseable ones are logged and dropped (RFC 3261
/// §18.3); bigger than 65 507 bytes are refused on send.
public actor UDPTransport {
    public nonisolated let local: SocketAddress
    /// Every received message, from any peer.
    public nonisolated let events: AsyncStream<ReceivedMessage>
    private let sink: AsyncStream<ReceivedMessage>.Continuation
    private let channel: SocketChannel
    private let trace: SIPTrace?
    /// A send without waiting and its trace record, and every received record, in wire order.
    private let traceOrder = TraceOrder()
    /// Set once by ``close()``; read by the nonisolated ``send(_:to:)`` (no actor hop per datagram).
    private let closed = Mutex(false)

    /// Binds `local` (port 0 picks a free port; `::` for IPv6).
    public init(
        local: SocketAddress = SocketAddress(ip: "0.0.0.0", port: 0)!, trace: SIPTrace? = nil,
        log: TransportLog = .standardError()
    ) throws(TransportError) {
        try self.init(local: local, trace: trace, log: log, onMessage: nil)
    }

    /// With `onMessage`, every parsed message goes straight to it (on the socket's queue, in
    /// order) instead of ``events``: one stream and one task fewer per message.
    init(
        local: SocketAddress, trace: SIPTrace?, log: TransportLog,
        onMessage: (@Sendable (ReceivedMessage) -> Void)?
    ) throws(TransportError) {
        channel = try Socket.bindDatagram(local)
        self.local = channel.localAddress ?? local
        self.trace = trace
        (events, sink) = AsyncStream.makeStream(of: ReceivedMessage.self)
        let sink = sink
        let bound = self.local
        let traceOrder = self.traceOrder
        channel.startReading { event in
            guard case .datagram(let bytes, let from) = event else { return }
            if bytes.allSatisfy({ $0 == 13 || $0 == 10 }) { return }
            if let trace {
                traceOrder.run { trace.record(.received, transport: .udp, local: bound, remote: from, message: bytes) }
            }
            do {
                let message = try SIPMessage(parsing: bytes, limits: SIPParserLimits(maxBodySize: 65_535))
                let received = ReceivedMessage(message: message, bytes: bytes, transport: .udp, local: bound, remote: from)
                if let onMessage { onMessage(received) } else { sink.yield(received) }
            } catch {
                log(.warning, "UDP \(from): dropped an unparseable datagram (\(bytes.count) bytes): \(error)")
            }
        }
    }

    deinit {
        channel.close()
        sink.finish()
    }

    /// Sends one message as one datagram.
    public nonisolated func send(_ message: [UInt8], to remote: SocketAddress) async throws(TransportError) {
        guard !closed.withLock({ $0 }) else { throw TransportError(.closed, transport: .udp, peer: remote.description, "socket closed") }
        guard message.count <= 65_507 else {
            throw TransportError(
                .messageTooLarge, transport: .udp, peer: remote.description,
                "\(message.count) bytes do not fit a UDP datagram (RFC 3261 §18.1.1: use TCP)")
        }
        guard remote.isIPv6 == local.isIPv6 else {
            throw TransportError(
                .invalidArgument, transport: .udp, peer: remote.description,
                "address family differs from the bound socket \(local)")
        }
        trace?.record(.sent, transport: .udp, local: local, remote: remote, message: message)
        do { try await channel.send(message, to: remote) } catch {
            throw TransportError(.sendFailed, transport: .udp, peer: remote.description, "sendto: \(error)")
        }
    }

    /// Sends one datagram at once if the socket takes it without waiting; false otherwise (nothing
    /// was sent: use ``send(_:to:)``, which waits for writability and reports errors).
    nonisolated func sendImmediately(_ message: [UInt8], to remote: SocketAddress) -> Bool {
        guard !closed.withLock({ $0 }), message.count <= 65_507, remote.isIPv6 == local.isIPv6 else { return false }
        guard let trace else { return channel.trySendDatagram(message, to: remote) }
        // Its answer may arrive before we are back from sendto: its record waits (TraceOrder).
        return traceOrder.run {
            let at = WireTime.now()
            guard channel.trySendDatagram(message, to: remote) else { return false }
            trace.record(.sent, transport: .udp, local: local, remote: remote, message: message, at: at)
            return true
        }
    }

    /// Sends one parsed/built SIP message as one datagram.
    public nonisolated func send(_ message: SIPMessage, to remote: SocketAddress) async throws(TransportError) {
        try await send(message.serialized(), to: remote)
    }

    public func close() {
        guard !closed.withLock({ was in defer { was = true }; return was }) else { return }
        channel.close()
        sink.finish()
    }
}
