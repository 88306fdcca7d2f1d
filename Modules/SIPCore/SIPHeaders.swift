/// The header lines of a message, in order, each kept as its raw bytes (RFC 3261 §7.3).
///
/// Storage is one byte buffer plus one array of small offset records (`HeaderSlot`): indexing a
/// parsed message allocates nothing per header, and typed values are parsed only when asked for
/// (see `SIPHeaders+Typed.swift`). A parsed message also carries the `HeaderIndex` its parse
/// recorded for the headers every transaction reads, so those accessors need no rescan. Edits
/// append new lines to the buffer and drop the index; a parsed message that is never edited
/// serializes as its original bytes.
public struct SIPHeaders: Sendable, RandomAccessCollection {
    package var storage: [UInt8]
    package var slots: [HeaderSlot]
    /// Set by every mutation; a message whose headers are modified is re-serialized line by line.
    package private(set) var isModified: Bool
    /// What the parse recorded about the hot headers; nil for built headers and after any edit.
    package private(set) var parsedIndex: HeaderIndex?

    /// No headers.
    public init() {
        storage = []
        slots = []
        isModified = false
        parsedIndex = nil
    }

    /// Headers from `(name, value)` pairs, in order.
    public init(_ pairs: [(SIPHeaderName, String)]) {
        self.init()
        for (name, value) in pairs { add(name, value) }
    }

    /// Makes room for about `bytes` bytes of header lines in `count` lines (a builder that knows
    /// the size saves the buffer's regrowth).
    public mutating func reserveCapacity(bytes: Int, count: Int) {
        storage.reserveCapacity(bytes)
        slots.reserveCapacity(count)
    }

    package init(storage: [UInt8], slots: [HeaderSlot], index: HeaderIndex? = nil) {
        self.storage = storage
        self.slots = slots
        self.isModified = false
        self.parsedIndex = index
    }

    /// The same lines without the parse's index: every typed accessor scans, as for built
    /// headers (tests and the fuzz targets compare both paths).
    package var withoutIndex: SIPHeaders {
        var copy = self
        copy.parsedIndex = nil
        return copy
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { slots.count }
    public subscript(position: Int) -> SIPHeaderField { SIPHeaderField(storage: storage, slot: slots[position]) }

    private func indices(of name: SIPHeaderName) -> [Int] {
        storage.withUnsafeBufferPointer { p in
            slots.indices.filter { name.matches(slots[$0].known, p, slots[$0].nameRange) }
        }
    }

    private func firstIndex(of name: SIPHeaderName) -> Int? {
        storage.withUnsafeBufferPointer { p in
            slots.firstIndex { name.matches($0.known, p, $0.nameRange) }
        }
    }

    /// Whether at least one line has this name.
    public func contains(_ name: SIPHeaderName) -> Bool { firstIndex(of: name) != nil }

    /// The first line with this name.
    public func first(_ name: SIPHeaderName) -> SIPHeaderField? { firstIndex(of: name).map { self[$0] } }

    /// Every line with this name, in order.
    public func fields(_ name: SIPHeaderName) -> [SIPHeaderField] { indices(of: name).map { self[$0] } }

    /// The unfolded value of the first line with this name.
    public subscript(name: SIPHeaderName) -> String? { first(name)?.value }

    /// The unfolded values of every line with this name (one string per line; comma-separated
    /// values within a line are not split — the typed accessors do that).
    public func values(_ name: SIPHeaderName) -> [String] { fields(name).map(\.value) }

    /// Appends `name: value` (RFC 3261 §7.3.1 canonical `Name: value` form). CR and LF in
    /// `value` are replaced by SP so a value can never inject a line.
    public mutating func add(_ name: SIPHeaderName, _ value: String) {
        insert(name, value, at: slots.count)
    }

    /// Inserts `name: value` before the line at `index`.
    public mutating func insert(_ name: SIPHeaderName, _ value: String, at index: Int) {
        isModified = true
        parsedIndex = nil
        let lineStart = storage.count
        storage.append(contentsOf: name.canonicalName.utf8)
        let nameEnd = storage.count
        storage.append(ByteClass.colon)
        storage.append(ByteClass.sp)
        let valueStart = storage.count
        var value = value
        value.withUTF8 { bytes in
            if bytes.contains(where: { $0 == ByteClass.cr || $0 == ByteClass.lf }) {
                for c in bytes { storage.append(c == ByteClass.cr || c == ByteClass.lf ? ByteClass.sp : c) }
            } else {
                storage.append(contentsOf: bytes)
            }
        }
        let valueEnd = storage.count
        storage.append(ByteClass.cr)
        storage.append(ByteClass.lf)
        let slot = HeaderSlot(
            lineStart: Int32(lineStart), nameEnd: Int32(nameEnd), valueStart: Int32(valueStart),
            valueEnd: Int32(valueEnd), lineEnd: Int32(storage.count), known: name.known)
        if index >= slots.count {
            slots.append(slot)
        } else {
            slots.insert(slot, at: Swift.max(index, 0))
        }
    }

    /// Replaces every line with this name by one `name: value` line at the first one's position
    /// (appended when there was none).
    public mutating func set(_ name: SIPHeaderName, _ value: String) {
        let position = firstIndex(of: name) ?? slots.count
        remove(name)
        insert(name, value, at: position)
    }

    /// Removes every line with this name; returns how many were removed.
    @discardableResult
    public mutating func remove(_ name: SIPHeaderName) -> Int {
        let found = indices(of: name)
        guard !found.isEmpty else { return 0 }
        isModified = true
        parsedIndex = nil
        for index in found.reversed() { slots.remove(at: index) }
        return found.count
    }

    /// Removes the line at `index`.
    public mutating func remove(at index: Int) {
        isModified = true
        parsedIndex = nil
        slots.remove(at: index)
    }

    /// The serialized header lines, each with its original (or CRLF) terminator.
    package func appendLines(to out: inout [UInt8]) {
        storage.withUnsafeBufferPointer { p in
            for slot in slots { out.append(contentsOf: UnsafeBufferPointer(rebasing: p[slot.lineRange])) }
        }
    }

    package var serializedSize: Int { slots.reduce(0) { $0 + Int($1.lineEnd - $1.lineStart) } }
}
