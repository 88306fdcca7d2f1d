/// A binary min-heap of deadlines, each with a small payload: the timer queue of a loop that
/// steps many machines (the load engines' RFC 3261 timers, line deadlines, refreshes,
/// keep-alives). Pure value; the owner asks for the earliest deadline, waits, pops what is due.
///
/// Cancelling is the owner's: payloads carry a stamp, a stale entry is skipped when it surfaces
/// and ``retain(where:)`` drops the stale ones when they pile up.
package struct DeadlineHeap<Payload: Sendable>: Sendable {
    @usableFromInline var entries: [(deadline: Duration, payload: Payload)] = []

    public init() {}

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// The earliest entry.
    @inlinable public var first: (deadline: Duration, payload: Payload)? { entries.first }

    @inlinable
    public mutating func push(_ deadline: Duration, _ payload: Payload) {
        entries.append((deadline, payload))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry.
    @inlinable @discardableResult
    public mutating func popFirst() -> (deadline: Duration, payload: Payload)? {
        guard !entries.isEmpty else { return nil }
        let top = entries[0]
        let last = entries.removeLast()
        guard !entries.isEmpty else { return top }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { break }
            var best = left
            if left + 1 < entries.count, entries[left + 1].deadline < entries[left].deadline { best = left + 1 }
            guard entries[best].deadline < entries[parent].deadline else { break }
            entries.swapAt(best, parent)
            parent = best
        }
        return top
    }

    /// Keeps the entries whose payload `keep` accepts (a sorted array is a heap).
    public mutating func retain(where keep: (Payload) -> Bool) {
        entries = entries.filter { keep($0.payload) }.sorted { $0.deadline < $1.deadline }
    }
}
