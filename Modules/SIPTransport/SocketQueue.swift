import Dispatch
import Synchronization

/// The serial queues every ``SocketChannel`` runs its Dispatch sources on, each with the one
/// receive buffer its read handlers share: a fixed set, each new socket given the next queue in
/// turn — never a queue (or a thread, or a buffer) of its own.
///
/// Why (docs/adr/0172-shared-socket-queues.md, the transport side of ADR 0044): a serial queue
/// of its own per socket targets libdispatch's overcommit pool, which starts a thread for such
/// a queue whenever it has work; a monitor holding a thousand WSS lines ran ~140 threads, paid a
/// thread hand-off per wake-up and kept a 16 KiB receive buffer per connection. These queues
/// target the global concurrent pool (as wide as the cores), and since a serial queue runs one
/// handler at a time, all the sockets on it read into the same buffer: the bytes are copied out
/// before the handler returns. Each socket's state is still confined to one serial queue.
///
/// So nothing on these queues may block: read handlers yield into an `AsyncStream` or hand a
/// parsed datagram on, writes wait for a write source, never `poll`.
final class SocketQueue: @unchecked Sendable {
    /// Queues in the set: more than the cores, so one socket's wake-up rarely waits behind
    /// another's (at most as many run at once as the global pool is wide).
    static let count = 4
    /// Room for the largest UDP payload; a stream reads on while bytes are there (16 KiB holds
    /// a whole TLS record, RFC 8446 §5.1, so 64 KiB is four of them per read).
    static let bufferSize = 65_536

    static let all: [SocketQueue] = (0..<count).map { SocketQueue(index: $0) }
    private static let cursor = Atomic<Int>(0)

    let queue: DispatchQueue
    /// Confined to `queue`: only a handler running on it reads into it.
    let buffer: UnsafeMutableRawBufferPointer

    private init(index: Int) {
        queue = DispatchQueue(label: "astra.socket.\(index)", target: .global())
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    /// The queue for a new socket (round-robin).
    static func next() -> SocketQueue {
        all[(cursor.wrappingAdd(1, ordering: .relaxed).oldValue & Int.max) % count]
    }
}
