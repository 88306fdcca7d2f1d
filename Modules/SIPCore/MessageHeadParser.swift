#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The start line and header index of one message, as offsets from the message's first byte.
struct ParsedHead: Sendable {
    enum StartLine: Sendable {
        case request(method: Range<Int>, uri: Range<Int>, version: Range<Int>)
        case response(version: Range<Int>, status: Int, reason: Range<Int>)
    }

    var startLine: StartLine
    /// The start line including its terminator.
    var startLineRange: Range<Int>
    var slots: [HeaderSlot]
    /// Offset just after the empty line that ends the header section (or the end of a datagram
    /// whose header section is closed by the datagram's end).
    var headerEnd: Int
    var contentLength: Int?
    /// The hot headers, recorded while validating them; nil for a header section with more
    /// lines than a 16-bit slot number counts.
    var index: HeaderIndex?
}

/// Indexes a header section (RFC 3261 §7.1–§7.3, §25.1) and validates the headers that framing
/// and transaction matching depend on: Content-Length, CSeq, Max-Forwards, Via, From, To, Call-ID
/// and Contact, recording what it scanned of them in a ``HeaderIndex``. Allocates only the slot
/// array.
enum MessageHeadParser {
    /// Index of the first `byte` in `p[from..<to]`, or `to` (memchr: vectorised by the C library).
    @inline(__always)
    static func firstByte(_ byte: UInt8, _ p: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int {
        guard from < to, let base = p.baseAddress, let hit = memchr(base + from, Int32(byte), to - from) else {
            return to
        }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
    }

    /// Index of the first CR or LF in `p[from..<to]`, or `to`.
    @inline(__always)
    static func firstLineBreak(_ p: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int {
        let lf = firstByte(ByteClass.lf, p, from, to)
        return firstByte(ByteClass.cr, p, from, lf)
    }

    static func parse(
        _ p: UnsafeBufferPointer<UInt8>, base: Int, end: Int, limits: SIPParserLimits,
        datagram: Bool
    ) throws(SIPParseError) -> ParsedHead {
        func fail(_ code: SIPParseError.Code, _ at: Int, _ name: Range<Int>? = nil, _ detail: String? = nil)
            -> SIPParseError
        {
            SIPParseError(code, offset: at - base, headerName: name.map { p.string($0) }, detail: detail)
        }
        let sectionLimit = base + limits.maxHeaderSectionSize
        // Start line.
        var i = base
        let lineLimit = Swift.min(end, i + limits.maxLineLength + 2)
        var lf = i
        lf = firstByte(ByteClass.lf, p, lf, lineLimit)
        guard lf < lineLimit else {
            if lf >= end { throw fail(.unterminatedHeaderSection, lf) }
            throw fail(.lineTooLong, i)
        }
        let contentEnd = lf > i && p[lf - 1] == ByteClass.cr ? lf - 1 : lf
        let startLine = try parseStartLine(p, i, contentEnd, base: base)
        let startLineRange = 0..<(lf + 1 - base)
        i = lf + 1

        var slots = [HeaderSlot]()
        slots.reserveCapacity(24)
        var contentLength: Int? = nil
        var index = HeaderIndex()
        var headerEnd = end
        while true {
            guard i < end else {
                guard datagram else { throw fail(.unterminatedHeaderSection, i) }
                headerEnd = end  // RFC 5118 archive files: the datagram ends the header section.
                break
            }
            let first = p[i]
            if first == ByteClass.cr {
                guard i + 1 < end, p[i + 1] == ByteClass.lf else { throw fail(.bareCarriageReturn, i) }
                headerEnd = i + 2
                break
            }
            if first == ByteClass.lf {
                headerEnd = i + 1
                break
            }
            let lineStart = i
            var j = i
            while j < end && ByteClass.isToken(p[j]) { j += 1 }
            let nameEnd = j
            guard nameEnd > lineStart else {
                throw fail(
                    .invalidHeaderLine, i, nil,
                    ByteClass.isWhitespace(first)
                        ? "line starts with whitespace" : "header name is not a token")
            }
            while j < end && ByteClass.isWhitespace(p[j]) { j += 1 }
            guard j < end, p[j] == ByteClass.colon else {
                throw fail(.invalidHeaderLine, j, lineStart..<nameEnd, "missing ':'")
            }
            j += 1
            // Leading LWS of the value, folded lines included.
            while j < end {
                let c = p[j]
                if ByteClass.isWhitespace(c) {
                    j += 1
                } else if c == ByteClass.cr, j + 2 < end, p[j + 1] == ByteClass.lf, ByteClass.isWhitespace(p[j + 2]) {
                    j += 3
                } else if c == ByteClass.lf, j + 1 < end, ByteClass.isWhitespace(p[j + 1]) {
                    j += 2
                } else {
                    break
                }
            }
            let valueStart = j
            var valueEnd = j
            var lineEnd = j
            let scanLimit = Swift.min(end, lineStart + limits.maxLineLength + 2)
            while true {
                j = firstLineBreak(p, j, scanLimit)
                guard j < scanLimit else {
                    if j >= end { throw fail(.unterminatedHeaderSection, j, lineStart..<nameEnd) }
                    throw fail(.lineTooLong, lineStart, lineStart..<nameEnd)
                }
                let terminatorStart = j
                if p[j] == ByteClass.cr {
                    guard j + 1 < end, p[j + 1] == ByteClass.lf else {
                        throw fail(.bareCarriageReturn, j, lineStart..<nameEnd)
                    }
                    j += 2
                } else {
                    j += 1
                }
                if j < end && ByteClass.isWhitespace(p[j]) { continue }  // folded continuation
                valueEnd = terminatorStart
                lineEnd = j
                break
            }
            guard lineEnd - lineStart <= limits.maxLineLength + 2 else {
                throw fail(.lineTooLong, lineStart, lineStart..<nameEnd)
            }
            guard lineEnd <= sectionLimit else { throw fail(.headerSectionTooLarge, lineStart) }
            guard slots.count < limits.maxHeaderCount else { throw fail(.tooManyHeaders, lineStart) }
            let known = KnownHeader.lookup(p, lineStart..<nameEnd)
            if let known {
                try validate(
                    known, p, valueStart..<valueEnd, base: base, limits: limits,
                    contentLength: &contentLength, index: &index, slot: Int16(truncatingIfNeeded: slots.count))
            }
            slots.append(
                HeaderSlot(
                    lineStart: Int32(lineStart - base), nameEnd: Int32(nameEnd - base),
                    valueStart: Int32(valueStart - base), valueEnd: Int32(valueEnd - base),
                    lineEnd: Int32(lineEnd - base), known: known))
            i = lineEnd
        }
        guard headerEnd <= sectionLimit else { throw fail(.headerSectionTooLarge, headerEnd) }
        return ParsedHead(
            startLine: startLine, startLineRange: startLineRange, slots: slots,
            headerEnd: headerEnd - base, contentLength: contentLength,
            index: slots.count <= HeaderIndex.maxSlots ? index : nil)
    }

    /// Eager checks of the headers framing and transactions rely on (RFC 3261 §8.1.1, §18.3); the
    /// first line of each hot header (slot number `slot`) also goes into `index`.
    private static func validate(
        _ known: KnownHeader, _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>,
        base: Int, limits: SIPParserLimits, contentLength: inout Int?, index: inout HeaderIndex, slot: Int16
    ) throws(SIPParseError) {
        switch known {
        case .contentLength:
            var c = ByteCursor(p, range, base: base, header: known)
            c.skipLWS()
            let value: UInt64
            do {
                value = try c.decimal(max: UInt64(limits.maxBodySize))
            } catch {
                throw c.error(error.code == .numberOutOfRange ? .bodyTooLarge : .invalidContentLength)
            }
            c.skipLWS()
            guard c.atEnd else { throw c.error(.invalidContentLength) }
            if let previous = contentLength, previous != Int(value) { throw c.error(.conflictingContentLength) }
            contentLength = Int(value)
            if index.contentLength < 0 {
                index.contentLength = slot
                index.contentLengthValue = Int32(truncatingIfNeeded: value)
            }
        case .cseq:
            let (number, _) = try SIPCSeq.scan(p, range, base: base)
            if index.cseq < 0 {
                index.cseq = slot
                index.cseqNumber = number
            }
        case .maxForwards:
            var c = ByteCursor(p, range, base: base, header: known)
            c.skipLWS()
            let value = try c.decimal(max: 255)
            c.skipLWS()
            guard c.atEnd else { throw c.error(.invalidHeaderValue) }
            if index.maxForwards < 0 {
                index.maxForwards = slot
                index.maxForwardsValue = UInt8(value)
            }
        case .via:
            let topParameters = try SIPVia.validate(p, range, base: base)
            if index.via < 0 {
                index.via = slot
                index.topViaParameters = Int32(truncatingIfNeeded: topParameters.lowerBound - base)
            }
        case .from:
            let parameters = try SIPNameAddress.validateSingle(p, range, base: base, header: known)
            if index.from < 0 {
                index.from = slot
                index.fromParameters = Int32(truncatingIfNeeded: parameters.lowerBound - base)
            }
        case .to:
            let parameters = try SIPNameAddress.validateSingle(p, range, base: base, header: known)
            if index.to < 0 {
                index.to = slot
                index.toParameters = Int32(truncatingIfNeeded: parameters.lowerBound - base)
            }
        case .contact:
            try SIPContact.validate(p, range, base: base)
            if index.contact < 0 { index.contact = slot }
        case .callID:
            var c = ByteCursor(p, range, base: base, header: known)
            while let b = c.peek, ByteClass.isWord(b) || b == ByteClass.at { c.i += 1 }
            guard c.i > range.lowerBound else { throw c.error(.invalidHeaderValue, "empty Call-ID") }
            c.skipLWS()
            guard c.atEnd else { throw c.error(.invalidHeaderValue, "invalid Call-ID character") }
            if index.callID < 0 { index.callID = slot }
        case .expires:
            // Not validated here (a bad Expires is the registrar's 400, RFC 3261 §10.3): only
            // the line is kept; `expires()` parses it when asked.
            if index.expires < 0 { index.expires = slot }
        case .contentType:
            if index.contentType < 0 { index.contentType = slot }
        default:
            break
        }
    }

    /// `Request-Line = Method SP Request-URI SP SIP-Version` or
    /// `Status-Line = SIP-Version SP Status-Code SP Reason-Phrase` (RFC 3261 §7.1, §7.2, §25.1).
    private static func parseStartLine(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, base: Int)
        throws(SIPParseError) -> ParsedHead.StartLine
    {
        func fail(_ code: SIPParseError.Code, _ at: Int) -> SIPParseError {
            SIPParseError(code, offset: at - base)
        }
        guard start < end else { throw fail(.invalidStartLine, start) }
        var i = start
        while i < end && ByteClass.isToken(p[i]) { i += 1 }
        if i < end, p[i] == ByteClass.slash {
            // Status-Line.
            let versionEnd = try scanVersion(p, start, end, base: base)
            i = versionEnd
            guard i < end, p[i] == ByteClass.sp else { throw fail(.invalidStartLine, i) }
            i += 1
            guard i + 3 <= end, ByteClass.isDigit(p[i]), ByteClass.isDigit(p[i + 1]), ByteClass.isDigit(p[i + 2])
            else { throw fail(.invalidStatusCode, i) }
            let status = Int(p[i] - 0x30) * 100 + Int(p[i + 1] - 0x30) * 10 + Int(p[i + 2] - 0x30)
            guard (100...699).contains(status) else { throw fail(.invalidStatusCode, i) }
            i += 3
            if i == end {
                return .response(
                    version: start - base..<versionEnd - base, status: status,
                    reason: end - base..<end - base)  // RFC 4475 noreason, liberally
            }
            guard p[i] == ByteClass.sp else { throw fail(.invalidStatusCode, i) }
            let cr = firstByte(ByteClass.cr, p, i + 1, end)
            guard cr == end else { throw fail(.invalidReasonPhrase, cr) }
            return .response(
                version: start - base..<versionEnd - base, status: status,
                reason: i + 1 - base..<end - base)
        }
        guard i > start else { throw fail(.invalidMethod, start) }
        guard i < end, p[i] == ByteClass.sp else {
            throw fail(i < end && p[i] != ByteClass.htab ? .invalidMethod : .invalidStartLine, i)
        }
        let method = start..<i
        i += 1
        let uriStart = i
        while i < end && p[i] != ByteClass.sp { i += 1 }
        let uri = uriStart..<i
        guard !uri.isEmpty, i < end else { throw fail(.invalidStartLine, i) }
        i += 1
        let versionEnd = try scanVersion(p, i, end, base: base)
        guard versionEnd == end else { throw fail(.invalidVersion, versionEnd) }
        _ = try URIScanner.scan(p, uri, base: base, code: .invalidRequestURI)
        return .request(
            method: method.lowerBound - base..<method.upperBound - base,
            uri: uri.lowerBound - base..<uri.upperBound - base, version: i - base..<end - base)
    }

    /// `SIP-Version = "SIP" "/" 1*DIGIT "." 1*DIGIT`; returns the end offset.
    private static func scanVersion(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, base: Int)
        throws(SIPParseError) -> Int
    {
        let fail = SIPParseError(.invalidVersion, offset: start - base)
        guard start + 4 <= end, p.equalsLowercase(start..<start + 3, "sip"), p[start + 3] == ByteClass.slash
        else { throw fail }
        var i = start + 4
        let major = i
        while i < end && ByteClass.isDigit(p[i]) { i += 1 }
        guard i > major, i < end, p[i] == ByteClass.dot else { throw fail }
        i += 1
        let minor = i
        while i < end && ByteClass.isDigit(p[i]) { i += 1 }
        guard i > minor else { throw fail }
        return i
    }
}
