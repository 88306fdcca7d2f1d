import Synchronization

/// The one path from the gateway to its ``StateStore``: every write, in the order it was asked
/// for, one at a time.
///
/// Two kinds of write share it. ``commit(_:)`` is durable before it returns: the token API awaits
/// it before its HTTP 200, so a phone is told "registered" only for a registration that is on
/// disk. ``enqueue(_:)`` is written behind: push buckets, provider back-off, a dropped token —
/// limits a push must not wait on a disk for. Queued changes coalesce by key (the bucket of a
/// user pushed ten times is written once) and go out as one transaction; a durable commit of the
/// same key supersedes a queued one. Every store call runs after the previous one has finished
/// (a chain of tasks), so a queued delete can never land after a newer registration.
final class StateWriter: Sendable {
    typealias Observe = @Sendable (_ seconds: Double, _ error: StateStoreError?) -> Void

    private struct Queue {
        var tail: Task<Void, Never>?
        var pending: [String: StateChange] = [:]
        var order: [String] = []
        var drainQueued = false
        var commits = 0
        var failures = 0
    }

    let store: any StateStore
    private let observe: Observe
    private let queue = Mutex(Queue())

    init(store: any StateStore, observe: @escaping Observe = { _, _ in }) {
        self.store = store
        self.observe = observe
    }

    /// Transactions committed and failed, since start.
    var counts: (commits: Int, failures: Int) { queue.withLock { ($0.commits, $0.failures) } }

    /// Commits `changes` durably, after every write asked for before.
    func commit(_ changes: [StateChange]) async throws(StateStoreError) {
        let task = queue.withLock { q -> Task<StateStoreError?, Never> in
            for change in changes where q.pending.removeValue(forKey: change.key) != nil {
                q.order.removeAll { $0 == change.key }
            }
            let previous = q.tail
            let task = Task { () -> StateStoreError? in
                await previous?.value
                return await self.write(changes)
            }
            q.tail = Task { _ = await task.value }
            return task
        }
        if let error = await task.value { throw error }
    }

    /// Queues `change` for the next write-behind batch (no wait: a push never waits on a disk).
    func enqueue(_ change: StateChange) {
        queue.withLock { q in
            if q.pending.updateValue(change, forKey: change.key) == nil { q.order.append(change.key) }
            guard !q.drainQueued else { return }
            q.drainQueued = true
            let previous = q.tail
            q.tail = Task {
                await previous?.value
                _ = await self.write(self.takePending())
            }
        }
    }

    /// Waits until every write asked for so far has been made (a stopping gateway).
    func flush() async {
        while let task = queue.withLock({ $0.tail }) {
            await task.value
            queue.withLock { q in if q.tail == task { q.tail = nil } }
        }
    }

    private func takePending() -> [StateChange] {
        queue.withLock { q in
            q.drainQueued = false
            defer {
                q.pending.removeAll()
                q.order.removeAll()
            }
            return q.order.compactMap { q.pending[$0] }
        }
    }

    private func write(_ changes: [StateChange]) async -> StateStoreError? {
        guard !changes.isEmpty else { return nil }
        let started = ContinuousClock.now
        var failure: StateStoreError?
        do { try await store.commit(changes) } catch { failure = error }
        let took = ContinuousClock.now - started
        queue.withLock { q in if failure == nil { q.commits += 1 } else { q.failures += 1 } }
        observe(Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18, failure)
        return failure
    }
}
