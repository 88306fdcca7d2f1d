/// The endpoint's running timers as one queue (a binary min-heap of deadlines), so a whole
/// endpoint needs one sleeping task instead of one task per RFC 3261 timer. Pure value: the
/// actor asks for the earliest deadline, sleeps until it and takes what is due.
///
/// Cancelling is lazy: the entry stays in the heap and is skipped when it surfaces (its
/// sequence number no longer matches the live one); the heap is compacted when stale entries
/// outnumber live ones.
struct TimerQueue: Sendable {
    private struct Entry: Sendable {
        let deadline: Duration
        let sequence: UInt64
        let id: TimerID
    }

    /// Live timers → the sequence number of their current heap entry.
    private var live: [TimerID: UInt64] = [:]
    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { live.isEmpty }
    var count: Int { live.count }

    /// Starts (or restarts) `id` to fire at `deadline`.
    mutating func schedule(_ id: TimerID, at deadline: Duration) {
        nextSequence &+= 1
        live[id] = nextSequence
        push(Entry(deadline: deadline, sequence: nextSequence, id: id))
        if heap.count > 64 && heap.count > 2 * live.count { compact() }
    }

    /// Stops `id`; false when it was not running.
    @discardableResult
    mutating func cancel(_ id: TimerID) -> Bool {
        live.removeValue(forKey: id) != nil
    }

    /// Stops every timer of one transaction.
    mutating func cancelAll(of key: TransactionKey, side: TimerID.Side) {
        guard !live.isEmpty else { return }
        for timer in TransactionTimer.allCases { live.removeValue(forKey: TimerID(side: side, key: key, timer: timer)) }
    }

    mutating func removeAll() {
        live.removeAll()
        heap.removeAll()
    }

    /// The earliest live deadline (stale entries on top are dropped on the way).
    mutating func nextDeadline() -> Duration? {
        while let top = heap.first {
            if live[top.id] == top.sequence { return top.deadline }
            popTop()
        }
        return nil
    }

    /// The sequence number of the most recently scheduled timer.
    var lastSequence: UInt64 { nextSequence }

    /// Removes and returns the earliest live timer due at `now` that was scheduled at or before
    /// `sequence` (timers started while firing wait for the next turn).
    mutating func popDue(now: Duration, scheduledBy sequence: UInt64) -> TimerID? {
        while let top = heap.first, top.deadline <= now {
            if live[top.id] != top.sequence {
                popTop()
                continue
            }
            guard top.sequence <= sequence else { return nil }
            popTop()
            live[top.id] = nil
            return top.id
        }
        return nil
    }

    // MARK: Heap

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.sequence < b.sequence)
    }

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let count = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var best = left
            let right = left + 1
            if right < count, Self.before(heap[right], heap[left]) { best = right }
            guard Self.before(heap[best], heap[parent]) else { return }
            heap.swapAt(best, parent)
            parent = best
        }
    }

    private mutating func compact() {
        heap.removeAll { live[$0.id] != $0.sequence }
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }
}
