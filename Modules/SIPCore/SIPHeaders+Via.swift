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

extension SIPHeaders {
    /// RFC 3261 §8.1.3.3 / §18.1.2: how many Via values a response has and, when one, its
    /// sent-by. Scans the bytes of the Via line(s) without building a ``SIPVia`` (one short
    /// string for the host), so the load engine can afford it per response.
    public var responseVia: ResponseVia {
        var first: HeaderSlot?
        for slot in slots where slot.known == .via {
            if first != nil { return .several }
            first = slot
        }
        guard let slot = first else { return .missing }
        return storage.withUnsafeBufferPointer { p -> ResponseVia in
            var c = ByteCursor(p, slot.valueRange, header: .via)
            guard let r = try? SIPVia.scan(&c), let more = try? c.nextListElement() else { return .missing }
            if more { return .several }
            return .single(ViaSentBy(p, host: r.host, kind: r.hostKind, port: r.port))
        }
    }

    /// The `branch` parameter of the top Via (RFC 3261 §8.1.1.7), found by scanning the first Via
    /// line's bytes without parsing the Via: what transaction matching (§17.1.3) needs per
    /// response. Nil when there is no Via or its first element has no branch. Folded lines are
    /// handled (SWS around `;` and `=`); quoted parameter values are skipped. On a parsed message
    /// the parse's index answers instead, with the branch ``topVia()`` gives (a quoted value
    /// unquoted).
    private static let branchName: [UInt8] = Array("branch".utf8)

    package var topViaBranch: String? {
        if let index = parsedIndex {
            guard index.via >= 0 else { return nil }
            let end = slots[Int(index.via)].valueEnd
            return storage.withUnsafeBufferPointer {
                HeaderIndex.parameter($0, from: index.topViaParameters, to: end, named: "branch")
            }
        }
        guard let slot = slots.first(where: { $0.known == .via }) else { return nil }
        return storage.withUnsafeBufferPointer { p -> String? in
            let end = slot.valueRange.upperBound
            var i = slot.valueRange.lowerBound
            var quoted = false
            @inline(__always) func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }
            while i < end {
                let c = p[i]
                if quoted {
                    if c == UInt8(ascii: "\\") { i += 2; continue }
                    if c == UInt8(ascii: "\"") { quoted = false }
                    i += 1
                    continue
                }
                if c == UInt8(ascii: "\"") { quoted = true }
                if c == UInt8(ascii: ",") { return nil }  // end of the top Via element
                guard c == UInt8(ascii: ";") else { i += 1; continue }
                i += 1
                while i < end, isSpace(p[i]) { i += 1 }
                let name = SIPHeaders.branchName
                guard end - i >= name.count,
                      (0..<name.count).allSatisfy({ ByteClass.lower(p[i + $0]) == name[$0] }) else { continue }
                var j = i + name.count
                while j < end, isSpace(p[j]) { j += 1 }
                guard j < end, p[j] == UInt8(ascii: "=") else { continue }
                j += 1
                while j < end, isSpace(p[j]) { j += 1 }
                let start = j
                while j < end, !isSpace(p[j]), p[j] != UInt8(ascii: ";"), p[j] != UInt8(ascii: ",") { j += 1 }
                guard j > start else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: p[start..<j]), as: UTF8.self)
            }
            return nil
        }
    }
}
