/// The endpoint's running timers as one queue (a binary min-heap of deadlines), so a whole
/// endpoint needs one sleeping task instead of one task per RFC 3261 timer. Pure value: the
/// actor asks for the earliest deadline, sleeps until it and takes what is due.
///
/// Cancelling is lazy: the entry stays in the heap and is skipped when it surfaces (its
/// sequence number no longer matches the live one); the heap is compacted when stale entries
/// outnumber live ones.
struct TimerQueue: Sendable {
    /// A heap entry: plain values only (no reference counting while the heap is reordered).
    private struct Entry: Sendable {
        let deadline: Duration
        let sequence: UInt64
    }

    private struct Owner: Sendable, Hashable {
        let side: TimerID.Side
        let key: TransactionKey
    }

    /// Live timers by sequence number (the heap entry that is current for them).
    private var bySequence: [UInt64: TimerID] = [:]
    /// Live timers of each transaction (a handful at most), for cancel and cancel-all.
    private var byOwner: [Owner: [(timer: TransactionTimer, sequence: UInt64)]] = [:]
    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { bySequence.isEmpty }
    var count: Int { bySequence.count }

    /// Starts (or restarts) `id` to fire at `deadline`.
    mutating func schedule(_ id: TimerID, at deadline: Duration) {
        nextSequence &+= 1
        let sequence = nextSequence
        let owner = Owner(side: id.side, key: id.key)
        if let old = byOwner[owner]?.firstIndex(where: { $0.timer == id.timer }) {
            bySequence[byOwner[owner]![old].sequence] = nil
            byOwner[owner]![old].sequence = sequence
        } else {
            byOwner[owner, default: []].append((id.timer, sequence))
        }
        bySequence[sequence] = id
        push(Entry(deadline: deadline, sequence: sequence))
        if heap.count > 64 && heap.count > 2 * bySequence.count { compact() }
    }

    /// Stops `id`; false when it was not running.
    @discardableResult
    mutating func cancel(_ id: TimerID) -> Bool {
        let owner = Owner(side: id.side, key: id.key)
        guard let index = byOwner[owner]?.firstIndex(where: { $0.timer == id.timer }) else { return false }
        let sequence = byOwner[owner]!.remove(at: index).sequence
        if byOwner[owner]!.isEmpty { byOwner[owner] = nil }
        bySequence[sequence] = nil
        return true
    }

    /// Stops every timer of one transaction.
    mutating func cancelAll(of key: TransactionKey, side: TimerID.Side) {
        guard let running = byOwner.removeValue(forKey: Owner(side: side, key: key)) else { return }
        for entry in running { bySequence[entry.sequence] = nil }
    }

    mutating func removeAll() {
        bySequence.removeAll()
        byOwner.removeAll()
        heap.removeAll()
    }

    /// The earliest live deadline (stale entries on top are dropped on the way).
    mutating func nextDeadline() -> Duration? {
        while let top = heap.first {
            if bySequence[top.sequence] != nil { return top.deadline }
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
            guard let id = bySequence[top.sequence] else {
                popTop()
                continue
            }
            guard top.sequence <= sequence else { return nil }
            popTop()
            cancel(id)
            return id
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
        heap.removeAll { bySequence[$0.sequence] == nil }
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }
}
