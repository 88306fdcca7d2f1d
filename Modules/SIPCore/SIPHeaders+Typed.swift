/// Typed access to the headers of RFC 3261 §20 that SIP layers above need.
///
/// On a parsed message the hot headers — Via, From/To (and their tags), Call-ID, CSeq, Contact,
/// Content-Length, Max-Forwards, Expires, Content-Type — are found through the ``HeaderIndex``
/// the parse recorded: numbers, tags, the Call-ID and the top Via's extent come from it without
/// rescanning the lines. Every other accessor, and every accessor of built or edited headers,
/// scans the raw bytes on each call. Errors carry the header name. Headers a layer does not
/// interpret (WWW-/Proxy-Authenticate, (Proxy-)Authorization, …) stay available as raw values
/// through ``SIPHeaders/values(_:)`` and ``SIPHeaders/fields(_:)``.
extension SIPHeaders {
    /// The slot of a hot header's first line per the index (nil when absent).
    @inline(__always)
    private func slot(_ number: Int16) -> HeaderSlot? { number >= 0 ? slots[Int(number)] : nil }

    /// Runs `body` on every line with this name from slot `start` on (a hot header's first line
    /// per the index: no line before it has the name).
    private func withValues<T>(
        _ name: SIPHeaderName, from start: Int = 0,
        _ body: (UnsafeBufferPointer<UInt8>, HeaderSlot) throws(SIPParseError) -> T?
    )
        throws(SIPParseError) -> [T]
    {
        var out = [T]()
        let result: Result<Void, SIPParseError> = storage.withUnsafeBufferPointer { p in
            do throws(SIPParseError) {
                for slot in slots[start...] where name.matches(slot.known, p, slot.nameRange) {
                    if let value = try body(p, slot) { out.append(value) }
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        return out
    }

    /// Parses the first line with this name, if any, without collecting into an array.
    private func withFirst<T>(
        _ name: SIPHeaderName,
        _ body: (UnsafeBufferPointer<UInt8>, HeaderSlot) throws(SIPParseError) -> T
    )
        throws(SIPParseError) -> T?
    {
        let result: Result<T?, SIPParseError> = storage.withUnsafeBufferPointer { p in
            guard let slot = slots.first(where: { name.matches($0.known, p, $0.nameRange) }) else {
                return .success(nil)
            }
            do throws(SIPParseError) {
                return .success(try body(p, slot))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Every Via value in order, across lines and commas (RFC 3261 §20.42, §7.3.1).
    public func vias() throws(SIPParseError) -> [SIPVia] {
        var all = [SIPVia]()
        _ = try withValues(.via) { (p, slot) throws(SIPParseError) -> Void? in
            try SIPVia.parseAll(p, slot.valueRange, into: &all)
            return nil
        }
        return all
    }

    /// The topmost Via (RFC 3261 §17.1.3, §17.2.3 transaction matching).
    public func topVia() throws(SIPParseError) -> SIPVia? {
        if let index = parsedIndex {
            guard let slot = slot(index.via) else { return nil }
            let result: Result<SIPVia, SIPParseError> = storage.withUnsafeBufferPointer { p in
                do throws(SIPParseError) { return .success(try SIPVia.parseFirst(p, slot.valueRange)) } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
        guard let field = first(.via) else { return nil }
        var one = [SIPVia]()
        try field.storage.withUnsafeBufferPointer { (p) throws(SIPParseError) in
            var c = ByteCursor(p, field.slot.valueRange, header: .via)
            let r = try SIPVia.scan(&c)
            try SIPVia.parseAll(p, field.slot.valueStart.asInt..<r.parameters.upperBound, into: &one)
        }
        return one.first
    }

    private func singleAddress(_ name: SIPHeaderName, indexed: Int16?) throws(SIPParseError) -> SIPNameAddress? {
        func build(_ p: UnsafeBufferPointer<UInt8>, _ slot: HeaderSlot) throws(SIPParseError) -> SIPNameAddress {
            var c = ByteCursor(p, slot.valueRange, header: slot.known)
            return try SIPNameAddress.parse(p, &c, header: slot.known)
        }
        if let indexed {
            guard let slot = slot(indexed) else { return nil }
            let result: Result<SIPNameAddress, SIPParseError> = storage.withUnsafeBufferPointer { p in
                do throws(SIPParseError) { return .success(try build(p, slot)) } catch { return .failure(error) }
            }
            return try result.get()
        }
        return try withFirst(name, build)
    }

    /// From (RFC 3261 §20.20).
    public func from() throws(SIPParseError) -> SIPNameAddress? { try singleAddress(.from, indexed: parsedIndex?.from) }

    /// To (RFC 3261 §20.39).
    public func to() throws(SIPParseError) -> SIPNameAddress? { try singleAddress(.to, indexed: parsedIndex?.to) }

    /// The From tag (RFC 3261 §19.3, §12): the same as `from()?.tag`, without building the address
    /// on a parsed message.
    public func fromTag() throws(SIPParseError) -> String? {
        guard let index = parsedIndex else { return try from()?.tag }
        guard let slot = slot(index.from) else { return nil }
        return storage.withUnsafeBufferPointer {
            HeaderIndex.parameter($0, from: index.fromParameters, to: slot.valueEnd, named: "tag")
        }
    }

    /// The To tag (RFC 3261 §19.3, §12): the same as `to()?.tag`, without building the address on
    /// a parsed message.
    public func toTag() throws(SIPParseError) -> String? {
        guard let index = parsedIndex else { return try to()?.tag }
        guard let slot = slot(index.to) else { return nil }
        return storage.withUnsafeBufferPointer {
            HeaderIndex.parameter($0, from: index.toParameters, to: slot.valueEnd, named: "tag")
        }
    }

    /// Call-ID (RFC 3261 §20.8), trimmed.
    public var callID: String? {
        guard let index = parsedIndex else { return self[.callID] }
        guard let slot = slot(index.callID) else { return nil }
        // The word and then only LWS (validated at parse time).
        return storage.withUnsafeBufferPointer { $0.string(slot.valueStart.asInt..<$0.endBeforeTrailingLWS(slot.valueRange)) }
    }

    /// CSeq (RFC 3261 §20.16).
    public func cseq() throws(SIPParseError) -> SIPCSeq? {
        if let index = parsedIndex {
            guard let slot = slot(index.cseq) else { return nil }
            // `1*DIGIT LWS Method *LWS` (validated at parse time): the method is the last token.
            return SIPCSeq(
                index.cseqNumber,
                storage.withUnsafeBufferPointer { p in
                    let end = p.endBeforeTrailingLWS(slot.valueRange)
                    var start = end
                    while start > slot.valueStart.asInt, ByteClass.isToken(p[start - 1]) { start -= 1 }
                    return SIPMethod(p.string(start..<end))
                })
        }
        return try withFirst(.cseq) { (p, slot) throws(SIPParseError) -> SIPCSeq in
            let (number, method) = try SIPCSeq.scan(p, slot.valueRange, base: 0)
            return SIPCSeq(number, SIPMethod(p.string(method)))
        }
    }

    /// Every Contact value in order; `[.wildcard]` for `Contact: *` (RFC 3261 §20.10).
    public func contacts() throws(SIPParseError) -> [SIPContact] {
        var first = 0
        if let index = parsedIndex {
            guard index.contact >= 0 else { return [] }
            first = Int(index.contact)
        }
        var all = [SIPContact]()
        _ = try withValues(.contact, from: first) { (p, slot) throws(SIPParseError) -> Void? in
            if SIPContact.isWildcard(p, slot.valueRange) {
                all.append(.wildcard)
            } else {
                try SIPNameAddress.parseList(p, slot.valueRange, header: .contact, into: &all, SIPContact.address)
            }
            return nil
        }
        return all
    }

    private func addressList(_ name: SIPHeaderName) throws(SIPParseError) -> [SIPNameAddress] {
        var all = [SIPNameAddress]()
        _ = try withValues(name) { (p, slot) throws(SIPParseError) -> Void? in
            try SIPNameAddress.parseList(p, slot.valueRange, header: slot.known, into: &all) { $0 }
            return nil
        }
        return all
    }

    /// Route values in order (RFC 3261 §20.34).
    public func routes() throws(SIPParseError) -> [SIPNameAddress] { try addressList(.route) }

    /// Record-Route values in order (RFC 3261 §20.30).
    public func recordRoutes() throws(SIPParseError) -> [SIPNameAddress] { try addressList(.recordRoute) }

    /// Path values (RFC 3327) and Service-Route values (RFC 3608).
    public func addresses(_ name: SIPHeaderName) throws(SIPParseError) -> [SIPNameAddress] { try addressList(name) }

    private func number(_ name: SIPHeaderName, max: UInt64) throws(SIPParseError) -> UInt64? {
        try withFirst(name) { (p, slot) throws(SIPParseError) -> UInt64 in try Self.number(p, slot, max: max) }
    }

    /// The number on one line (`*LWS 1*DIGIT *LWS`), at most `max`.
    private func number(_ slot: HeaderSlot, max: UInt64) throws(SIPParseError) -> UInt64 {
        let result: Result<UInt64, SIPParseError> = storage.withUnsafeBufferPointer { p in
            do throws(SIPParseError) { return .success(try Self.number(p, slot, max: max)) } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func number(_ p: UnsafeBufferPointer<UInt8>, _ slot: HeaderSlot, max: UInt64)
        throws(SIPParseError) -> UInt64
    {
        var c = ByteCursor(p, slot.valueRange, header: slot.known)
        c.skipLWS()
        let value = try c.decimal(max: max)
        c.skipLWS()
        guard c.atEnd else { throw c.error(.invalidHeaderValue) }
        return value
    }

    /// Max-Forwards, 0...255 (RFC 3261 §20.22, §8.1.1.6).
    public func maxForwards() throws(SIPParseError) -> Int? {
        if let index = parsedIndex { return index.maxForwards >= 0 ? Int(index.maxForwardsValue) : nil }
        return try number(.maxForwards, max: 255).map(Int.init)
    }

    /// Content-Length (RFC 3261 §20.14).
    public func contentLength() throws(SIPParseError) -> Int? {
        if let index = parsedIndex { return index.contentLength >= 0 ? Int(index.contentLengthValue) : nil }
        return try number(.contentLength, max: UInt64(Int32.max)).map(Int.init)
    }

    /// Expires as delta-seconds (RFC 3261 §20.19; values above 2**32-1 are an error here).
    public func expires() throws(SIPParseError) -> UInt32? {
        if let index = parsedIndex {
            guard let slot = slot(index.expires) else { return nil }
            return UInt32(try number(slot, max: UInt64(UInt32.max)))
        }
        return try number(.expires, max: UInt64(UInt32.max)).map(UInt32.init)
    }

    /// Min-Expires (RFC 3261 §20.23), sent with 423 Interval Too Brief.
    public func minExpires() throws(SIPParseError) -> UInt32? {
        try number(.minExpires, max: UInt64(UInt32.max)).map(UInt32.init)
    }

    /// Content-Type as written, e.g. `application/sdp` (RFC 3261 §20.15).
    public var contentType: String? {
        guard let index = parsedIndex else { return self[.contentType] }
        return slot(index.contentType).map { SIPHeaderField(storage: storage, slot: $0).value }
    }

    /// The comma-separated elements of every line with this name, split only outside
    /// quoted-strings and `<>` (RFC 3261 §7.3.1), each trimmed and unfolded; empty elements are
    /// dropped. Do not use it for WWW-Authenticate and friends, whose commas separate parameters.
    public func commaSeparatedValues(_ name: SIPHeaderName) -> [String] {
        var out = [String]()
        storage.withUnsafeBufferPointer { p in
            for slot in slots where name.matches(slot.known, p, slot.nameRange) {
                let range = slot.valueRange
                var start = range.lowerBound
                var i = range.lowerBound
                var inQuotes = false
                var angle = false
                while i <= range.upperBound {
                    if i == range.upperBound || (!inQuotes && !angle && p[i] == ByteClass.comma) {
                        var s = start
                        var e = i
                        while s < e && ByteClass.isLinearWhitespace(p[s]) { s += 1 }
                        while e > s && ByteClass.isLinearWhitespace(p[e - 1]) { e -= 1 }
                        if e > s { out.append(p.unfoldedString(s..<e)) }
                        start = i + 1
                    } else if inQuotes {
                        if p[i] == ByteClass.backslash { i += 1 } else if p[i] == ByteClass.quote { inQuotes = false }
                    } else if p[i] == ByteClass.quote {
                        inQuotes = true
                    } else if p[i] == ByteClass.lessThan {
                        angle = true
                    } else if p[i] == ByteClass.greaterThan {
                        angle = false
                    }
                    i += 1
                }
            }
        }
        return out
    }

    /// The comma-separated tokens of every line with this name (Allow, Supported, Require,
    /// Proxy-Require, Unsupported, Allow-Events; RFC 3261 §20.5, §20.37, §20.32).
    public func tokens(_ name: SIPHeaderName) -> [String] { commaSeparatedValues(name) }

    /// Allow (RFC 3261 §20.5).
    public var allow: [SIPMethod] { tokens(.allow).map { SIPMethod($0) } }
    /// Supported (RFC 3261 §20.37).
    public var supported: [String] { tokens(.supported) }
    /// Require (RFC 3261 §20.32).
    public var require: [String] { tokens(.require) }
    /// User-Agent (RFC 3261 §20.41), unfolded.
    public var userAgent: String? { self[.userAgent] }
    /// Server (RFC 3261 §20.35), unfolded.
    public var server: String? { self[.server] }
}

extension Int32 {
    var asInt: Int { Int(self) }
}
