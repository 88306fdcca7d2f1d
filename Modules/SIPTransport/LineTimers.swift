import SIPCore
import Synchronization

/// Timers of many lines on one deadline heap driven by one sleeping task for the whole process:
/// a monitor's ping and ping-timeout timers and, when it passes the same instance, each line's
/// RFC 5626 keep-alive (``ConnectionOptions/timers``) and registration refresh and retry
/// (`LineRegistration`).
///
/// Why (docs/adr/0172-monitor-cost-shared-queues-timers-exposition.md, 0211): with a `Task`
/// sleeping per timer, a thousand lines kept two thousand timer tasks parked, and every ping made one more (its timeout) that
/// was cancelled a few milliseconds later — a wake-up for nothing, and a Dispatch timer that
/// still fired seconds later. Here a timer is an entry in a `DeadlineHeap`; the one sleeper
/// waits for the earliest deadline and is replaced only when a new timer is due sooner (rare:
/// a thousand lines' pings are spread over the interval). Starting a timer under a key that is
/// running replaces it; cancelling is lazy (the heap entry is skipped when it surfaces).
///
/// Time is the injected clock's (virtual in tests). Due timers run in deadline order, outside
/// the lock; a timer's `fire` must not block (the monitor's hops onto the line's actor).
public final class LineTimers<C: Clock>: Sendable where C.Duration == Duration {
    /// A running timer's name: the line (``newOwner()``) and which of its timers.
    public struct Key: Hashable, Sendable {
        public let owner: UInt64
        public let slot: UInt8
        public init(owner: UInt64, slot: UInt8) {
            self.owner = owner
            self.slot = slot
        }
    }

    private struct Entry: Sendable {
        let key: Key
        let stamp: UInt64
    }

    private struct State {
        var heap = DeadlineHeap<Entry>()
        var live: [Key: (stamp: UInt64, fire: @Sendable () -> Void)] = [:]
        var stamp: UInt64 = 0
        var owners: UInt64 = 0
        /// The deadline the sleeper waits for, and the sleeper.
        var armed: Duration?
        var sleeper: Task<Void, Never>?
        /// Which sleeper is the current one (a replaced one that already woke does nothing).
        var generation: UInt64 = 0
    }

    private let clock: C
    private let origin: C.Instant
    private let state = Mutex(State())

    public init(clock: C) {
        self.clock = clock
        origin = clock.now
    }

    deinit { state.withLock { $0.sleeper?.cancel() } }

    /// A fresh owner number for one line's keys.
    public func newOwner() -> UInt64 {
        state.withLock { s in
            s.owners += 1
            return s.owners
        }
    }

    /// Timers running (not yet fired or cancelled).
    public var count: Int { state.withLock { $0.live.count } }

    /// Runs `fire` once after `delay`, replacing the timer running under `key`.
    public func start(_ key: Key, after delay: Duration, _ fire: @escaping @Sendable () -> Void) {
        let deadline = now + delay
        state.withLock { s in
            s.stamp &+= 1
            s.live[key] = (s.stamp, fire)
            s.heap.push(deadline, Entry(key: key, stamp: s.stamp))
            if let armed = s.armed, armed <= deadline { return }
            arm(&s, at: deadline)
        }
    }

    /// Stops the timer running under `key` (nothing when none is).
    public func cancel(_ key: Key) {
        state.withLock { _ = $0.live.removeValue(forKey: key) }
    }

    /// Stops every timer of `owner` (a line that stops).
    public func cancelAll(of owner: UInt64) {
        state.withLock { s in s.live = s.live.filter { $0.key.owner != owner } }
    }

    private var now: Duration { origin.duration(to: clock.now) }

    /// Replaces the sleeper with one that wakes at `deadline`. Under the lock.
    private func arm(_ s: inout State, at deadline: Duration) {
        s.sleeper?.cancel()
        s.armed = deadline
        s.generation &+= 1
        let generation = s.generation
        let wake = origin.advanced(by: deadline)
        s.sleeper = Task { [weak self, clock] in
            do { try await clock.sleep(until: wake, tolerance: nil) } catch { return }
            self?.fireDue(generation)
        }
    }

    /// The sleeper woke: runs every timer that is due, then sleeps until the next one.
    private func fireDue(_ generation: UInt64) {
        let now = now
        let due: [@Sendable () -> Void] = state.withLock { s in
            guard s.generation == generation else { return [] }
            var due: [@Sendable () -> Void] = []
            while let top = s.heap.first, top.deadline <= now || s.live[top.payload.key]?.stamp != top.payload.stamp {
                s.heap.popFirst()
                let key = top.payload.key
                if let running = s.live[key], running.stamp == top.payload.stamp {
                    s.live[key] = nil
                    due.append(running.fire)
                }
            }
            s.armed = nil
            s.sleeper = nil
            if let next = s.heap.first?.deadline { arm(&s, at: next) }
            return due
        }
        for fire in due { fire() }
    }
}
