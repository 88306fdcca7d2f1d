/// A min-heap of timed values ordered by (time, insertion sequence): the discrete-event queue.
///
/// Value-typed binary heap over one contiguous array: no per-event class, closure or existential.
/// Events at the same virtual millisecond run in the order they were scheduled, which makes every
/// run with the same seed byte-identical.
package struct EventQueue<Element>: Sendable where Element: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var time: Int64
        @usableFromInline var seq: UInt64
        @usableFromInline var element: Element

        @inlinable init(time: Int64, seq: UInt64, element: Element) {
            self.time = time
            self.seq = seq
            self.element = element
        }

        @inlinable func before(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && seq < other.seq)
        }
    }

    @usableFromInline var heap: [Entry] = []
    @usableFromInline var nextSeq: UInt64 = 0

    /// An empty queue with room for `capacity` entries.
    public init(capacity: Int = 64) { heap.reserveCapacity(capacity) }

    /// The number of pending entries.
    @inlinable public var count: Int { heap.count }
    /// Whether nothing is pending.
    @inlinable public var isEmpty: Bool { heap.isEmpty }
    /// The time of the earliest entry, if any.
    @inlinable public var nextTime: Int64? { heap.first?.time }

    /// Drops every entry but keeps the storage (for reuse across fuzz runs).
    public mutating func removeAll() {
        heap.removeAll(keepingCapacity: true)
        nextSeq = 0
    }

    /// Schedules `element` at virtual time `time` (ms).
    @inlinable public mutating func push(_ element: Element, at time: Int64) {
        heap.append(Entry(time: time, seq: nextSeq, element: element))
        nextSeq &+= 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest entry.
    @inlinable public mutating func pop() -> (time: Int64, element: Element)? {
        guard !heap.isEmpty else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return (last.time, last.element) }
        let top = heap[0]
        heap[0] = last
        siftDown(0)
        return (top.time, top.element)
    }

    @inlinable mutating func siftUp(_ start: Int) {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) >> 1
            guard entry.before(heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    @inlinable mutating func siftDown(_ start: Int) {
        let count = heap.count
        var parent = start
        let entry = heap[parent]
        while true {
            var child = 2 * parent + 1
            if child >= count { break }
            if child + 1 < count && heap[child + 1].before(heap[child]) { child += 1 }
            guard heap[child].before(entry) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = entry
    }
}
