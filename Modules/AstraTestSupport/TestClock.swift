import Synchronization

/// A `Clock` whose time moves only when a test calls ``advance(by:)``.
///
/// Protocol timers (RFC 3261 T1/T2/T4, registration refresh, push-wake deadlines) are tested in
/// virtual time with it: no test sleeps on the wall clock. Modelled on swift-clocks' TestClock.
public final class TestClock: Clock, Sendable {
    /// A point in virtual time: the offset from the clock's start.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are currently suspended in ``sleep(until:tolerance:)``.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest pending deadline, if any task sleeps.
    public var nextDeadline: Instant? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { s in
                    if Task.isCancelled || deadline <= s.now { return true }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { s in
                guard let index = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline is reached, in
    /// deadline order. Returns how many it woke: 0 proves that no timer was due, so a test can
    /// assert "nothing happens before the deadline" without waiting on the wall clock.
    @discardableResult
    public func advance(by duration: Duration) -> Int {
        advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `instant` (never backwards), waking due sleepers in deadline order;
    /// returns how many it woke.
    @discardableResult
    public func advance(to instant: Instant) -> Int {
        let due: [Sleeper] = state.withLock { s in
            if instant > s.now { s.now = instant }
            let ready = s.sleepers.filter { $0.deadline <= s.now }.sorted { $0.deadline < $1.deadline }
            s.sleepers.removeAll { $0.deadline <= s.now }
            return ready
        }
        for sleeper in due { sleeper.continuation.resume() }
        return due.count
    }

    /// Yields until at least `count` tasks sleep on this clock (bounded: gives up after
    /// `maxYields` scheduler turns and returns false), so a test can advance time only once the
    /// code under test has armed its timer.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, maxYields: Int = 100_000) async -> Bool {
        for _ in 0..<maxYields {
            if sleeperCount >= count { return true }
            await Task.yield()
        }
        return sleeperCount >= count
    }
}
