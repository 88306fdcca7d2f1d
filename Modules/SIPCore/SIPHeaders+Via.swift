/// Editing the topmost Via value, which may share its line with others (`Via: a, b`).
extension SIPHeaders {
    /// The index of the first Via line, its first value, and the raw text of the values after it.
    private func topViaSplit() throws(SIPParseError) -> (index: Int, top: SIPVia, rest: String?)? {
        guard let index = slots.indices.first(where: { slots[$0].known == .via }) else { return nil }
        let slot = slots[index]
        let result: Result<(index: Int, top: SIPVia, rest: String?), SIPParseError> =
            storage.withUnsafeBufferPointer { p in
                do throws(SIPParseError) {
                    var c = ByteCursor(p, slot.valueRange, header: .via)
                    let r = try SIPVia.scan(&c)
                    var one = [SIPVia]()
                    try SIPVia.parseAll(p, slot.valueRange.lowerBound..<r.parameters.upperBound, into: &one)
                    let rest = try c.nextListElement() ? p.unfoldedString(c.i..<slot.valueRange.upperBound) : nil
                    return .success((index, one[0], rest))
                } catch {
                    return .failure(error)
                }
            }
        return try result.get()
    }

    /// Replaces the topmost Via value, keeping any values after it on the same line (RFC 3261
    /// §18.2.1: a server adds `received` and fills `rport`, RFC 3581 §4). Adds a Via line first
    /// when there is none.
    public mutating func setTopVia(_ via: SIPVia) throws(SIPParseError) {
        guard let split = try topViaSplit() else {
            insert(.via, via.description, at: 0)
            return
        }
        remove(at: split.index)
        insert(.via, via.description + (split.rest.map { ", " + $0 } ?? ""), at: split.index)
    }

    /// Removes and returns the topmost Via value (RFC 3261 §8.1.3.3 a UAC's check, §16.7 step 3
    /// a proxy forwarding a response).
    @discardableResult
    public mutating func removeTopVia() throws(SIPParseError) -> SIPVia? {
        guard let split = try topViaSplit() else { return nil }
        remove(at: split.index)
        if let rest = split.rest { insert(.via, rest, at: split.index) }
        return split.top
    }
}
