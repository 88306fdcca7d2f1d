import Dispatch
import Synchronization

/// The serial queues every ``TCPConnection`` and its Dispatch sources run on: a fixed set, each
/// new connection given the next one in turn — never a queue (or a thread) per connection.
///
/// Why (docs/decisions.md D44): a serial queue of its own per connection targets libdispatch's
/// overcommit pool, which starts a thread for every such queue that has work; a wave of idle
/// connections closed together churned hundreds of threads, and what each left behind showed as
/// heap that grew ~164 B per closed connection for good. Here the threads connection IO can take
/// are bounded by ``count``, and each connection's state is still confined to one serial queue,
/// without locks. The queues are overcommit ones on purpose: a pool as wide as the cores
/// (`DispatchQueue.global()`) is shared with blocking work elsewhere in the process, which could
/// starve every socket.
///
/// Nothing on these queues may block: reads are yielded into an `AsyncStream`, and bytes the
/// socket does not take at once wait in the connection's ``WriteOutbox`` for a write source.
enum ConnectionQueues {
    /// Queues in the set: a few more than the two cores the gateway runs on, so one busy
    /// connection's wake-up never delays every other.
    static let count = 4
    static let all: [DispatchQueue] = (0..<count).map { DispatchQueue(label: "astra.httplite.io.\($0)") }
    private static let cursor = Atomic<Int>(0)

    /// The queue for a new connection (round-robin).
    static func next() -> DispatchQueue {
        all[(cursor.wrappingAdd(1, ordering: .relaxed).oldValue & Int.max) % count]
    }
}
