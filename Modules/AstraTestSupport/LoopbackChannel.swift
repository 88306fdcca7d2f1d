import SIPCore
import SIPDialog
import SIPTransport
import Synchronization

/// Faults a ``LoopbackChannel`` injects on every message it carries (pjproject's
/// `sip_transport_loop` idea): loss, duplication and delay, from a seeded generator so a test
/// run is repeatable.
public struct LoopbackFaults: Sendable {
    /// Probability (0…1) that a message is dropped.
    public var loss: Double
    /// Probability (0…1) that a message is delivered twice.
    public var duplication: Double
    /// One-way delay of every message.
    public var delay: Duration
    /// Extra random delay, uniform in 0…jitter (reorders messages when larger than their spacing).
    public var jitter: Duration

    public init(loss: Double = 0, duplication: Double = 0, delay: Duration = .zero, jitter: Duration = .zero) {
        self.loss = loss
        self.duplication = duplication
        self.delay = delay
        self.jitter = jitter
    }

    public static let none = LoopbackFaults()
}

/// One end of an in-memory SIP flow. Two ends are made with ``pair(transport:clock:faults:seed:)``;
/// what one sends the other receives as `FlowEvent.message`, after the faults, in the clock's time.
public final class LoopbackChannel: SIPMessageChannel, Sendable {
    public let events: AsyncStream<FlowEvent>
    private let sink: AsyncStream<FlowEvent>.Continuation
    private let state: Mutex<State>
    private let clock: any Clock<Duration>
    private let transport: TransportKind
    public let local: SocketAddress
    public let remote: SocketAddress

    private struct State {
        var peer: LoopbackChannel?
        var faults: LoopbackFaults
        var random: UInt64
        var up = false
        var sent: [[UInt8]] = []
    }

    private init(transport: TransportKind, local: SocketAddress, remote: SocketAddress, clock: any Clock<Duration>,
                 faults: LoopbackFaults, seed: UInt64) {
        self.transport = transport
        self.local = local
        self.remote = remote
        self.clock = clock
        state = Mutex(State(faults: faults, random: seed))
        (events, sink) = AsyncStream.makeStream(of: FlowEvent.self)
    }

    /// Two connected ends: `a` (127.0.0.1:5070, the user agent) and `b` (127.0.0.1:5060, the peer).
    public static func pair(transport: TransportKind = .udp, clock: any Clock<Duration>,
                            faults: LoopbackFaults = .none, seed: UInt64 = 1) -> (a: LoopbackChannel, b: LoopbackChannel) {
        let ua = SocketAddress(ip: "127.0.0.1", port: 5070)!
        let server = SocketAddress(ip: "127.0.0.1", port: 5060)!
        let a = LoopbackChannel(transport: transport, local: ua, remote: server, clock: clock, faults: faults, seed: seed)
        let b = LoopbackChannel(transport: transport, local: server, remote: ua, clock: clock, faults: faults,
                                seed: seed &+ 0x9E37_79B9)
        a.state.withLock { $0.peer = b }
        b.state.withLock { $0.peer = a }
        return (a, b)
    }

    /// Every message this end has sent, in order (for assertions on retransmissions).
    public var sentMessages: [[UInt8]] { state.withLock { $0.sent } }

    /// Changes the faults from now on.
    public func setFaults(_ faults: LoopbackFaults) { state.withLock { $0.faults = faults } }

    public func start() async {
        state.withLock { $0.up = true }
        sink.yield(.connected(FlowInfo(transport: transport, local: local, remote: remote,
                                       viaSentBy: "\(local.uriHost):\(local.port)",
                                       contactHost: "\(local.uriHost):\(local.port)")))
    }

    public func send(_ message: [UInt8]) async throws(TransportError) {
        let decision: (peer: LoopbackChannel, copies: Int, delays: [Duration])? = state.withLock { s in
            guard s.up, let peer = s.peer else { return nil }
            s.sent.append(message)
            let drop = Self.uniform(&s.random) < s.faults.loss
            let copies = drop ? 0 : (Self.uniform(&s.random) < s.faults.duplication ? 2 : 1)
            var delays: [Duration] = []
            for _ in 0..<copies {
                delays.append(s.faults.delay + s.faults.jitter * Self.uniform(&s.random))
            }
            return (peer, copies, delays)
        }
        guard let decision else {
            throw TransportError(.notConnected, transport: transport, peer: remote.description, "loopback is down")
        }
        for delay in decision.delays {
            if delay == .zero {
                decision.peer.deliver(message, from: local)
            } else {
                let clock = self.clock
                let peer = decision.peer
                let from = local
                Task {
                    try? await clock.sleep(for: delay)
                    peer.deliver(message, from: from)
                }
            }
        }
    }

    /// Kills the flow on both ends (`FlowEvent.down`), as a dead connection would.
    public func fail(_ code: TransportError.Code = .keepAliveTimeout) {
        let peer = state.withLock { s -> LoopbackChannel? in
            s.up = false
            return s.peer
        }
        sink.yield(.down(TransportError(code, transport: transport, peer: remote.description, "loopback failed")))
        peer?.state.withLock { $0.up = false }
    }

    /// Brings a failed flow back (`FlowEvent.connected` on this end).
    public func recover() async {
        state.withLock { $0.peer }?.state.withLock { $0.up = true }
        await start()
    }

    public func stop() async {
        state.withLock { $0.up = false }
        sink.yield(.stopped)
        sink.finish()
    }

    /// Delivers one message as the real transport would: parsed, unparsable ones dropped
    /// (RFC 3261 §18.3).
    private func deliver(_ bytes: [UInt8], from: SocketAddress) {
        guard state.withLock({ $0.up }), let message = try? SIPMessage(parsing: bytes) else { return }
        sink.yield(.message(ReceivedMessage(message: message, bytes: bytes, transport: transport, local: local,
                                            remote: from)))
    }

    /// SplitMix64 step → uniform 0..<1.
    private static func uniform(_ s: inout UInt64) -> Double {
        s &+= 0x9E37_79B9_7F4A_7C15
        var z = s
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}
