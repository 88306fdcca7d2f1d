import Dispatch
import Synchronization

/// The serial queues every ``TCPConnection`` and ``TCPListener`` runs its Dispatch sources on: a
/// fixed set, each new one given the next queue in turn — never a queue (or a thread) of its own.
///
/// Why (docs/decisions.md D44): a serial queue of its own per connection targets libdispatch's
/// overcommit pool, which starts a thread for such a queue whenever it has work and lets it go
/// when idle; a wave of idle connections closed together churned hundreds of threads, and what
/// each one left behind showed as heap that grew ~164 B per closed connection, for good. Four
/// serial queues of our own on that overcommit pool still churned a few threads per wave (heap
/// +40 B per connection); these queues target the global concurrent pool instead, the few
/// threads as wide as the cores that Swift concurrency's jobs run on too (and that consume every
/// connection's events anyway): no thread is ever started for connection IO, and the heap stays
/// flat. Each connection's state is still confined to one serial queue, without locks.
///
/// So nothing on these queues may block — a blocked worker stalls the whole process's tasks:
/// reads are yielded into an `AsyncStream`, bytes the socket does not take at once wait in the
/// connection's ``WriteOutbox`` for a write source (never `poll`, never a retry timer), and a
/// write's `done` callback must return at once.
enum ConnectionQueues {
    /// Queues in the set: more than the cores, so that one connection's wake-up rarely waits
    /// behind another's (at most as many run at once as the global pool is wide).
    static let count = 4
    static let all: [DispatchQueue] = (0..<count).map {
        DispatchQueue(label: "astra.httplite.io.\($0)", target: .global())
    }
    private static let cursor = Atomic<Int>(0)

    /// The queue for a new connection or listener (round-robin).
    static func next() -> DispatchQueue {
        all[(cursor.wrappingAdd(1, ordering: .relaxed).oldValue & Int.max) % count]
    }
}
