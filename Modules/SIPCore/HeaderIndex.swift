/// What the parser learned about the headers every transaction reads, recorded in the same pass
/// that validates them (RFC 3261 §8.1.1 mandatory headers, §17.1.3 / §17.2.3 transaction
/// matching, §12.1 dialog tags, §18.3 framing): the slot of the first line of each, and the
/// ranges and numbers the validation already produced. The typed accessors of ``SIPHeaders``
/// read from here instead of rescanning every header line on every call.
///
/// Offsets are from the message's first byte, like ``HeaderSlot``'s. Only parsed messages have
/// an index; any edit of the header list drops it (the accessors then scan the lines, as they do
/// for built messages), so an index never describes lines that changed. Recording costs no
/// allocation and no work beyond stores: the index is a few integers stored beside the slot
/// array, and the `tag` and `branch` parameters are looked up inside the recorded parameter
/// ranges only when asked for (the lazy parse, which never asks, pays nothing for them).
package struct HeaderIndex: Sendable, Hashable {
    /// A byte range as two offsets (half the size of a `Range<Int>`).
    package struct Span: Sendable, Hashable {
        var start: Int32
        var end: Int32

        @inline(__always)
        init(_ range: Range<Int>, base: Int) {
            start = Int32(truncatingIfNeeded: range.lowerBound - base)
            end = Int32(truncatingIfNeeded: range.upperBound - base)
        }

        var range: Range<Int> { Int(start)..<Int(end) }
    }

    /// Slot numbers are 16-bit (a smaller index to copy with every `SIPHeaders`); a header
    /// section with more lines than that gets no index (the parser drops it, see
    /// ``MessageHeadParser``), so a recorded number is always exact.
    static let maxSlots = Int(Int16.max)

    /// Slot number of the first line of each header, or -1.
    var via: Int16 = -1
    var from: Int16 = -1
    var to: Int16 = -1
    var callID: Int16 = -1
    var cseq: Int16 = -1
    var contact: Int16 = -1
    var contentLength: Int16 = -1
    var maxForwards: Int16 = -1
    /// Expires is not validated at parse time (a bad one is the registrar's 400, RFC 3261
    /// §10.3), so only its line is kept: `expires()` parses that line when asked, and throws
    /// for a bad value as it does without an index.
    var expires: Int16 = -1
    var contentType: Int16 = -1

    /// The parameters of the first via-parm of the first Via line (`*( SEMI via-params )`); its
    /// end is the end of that via-parm. `branch` (RFC 3261 §8.1.1.7) is looked up in it.
    var topViaParameters = Span(0..<0, base: 0)
    /// The parameters of From and To (`*( SEMI generic-param )`), where `tag` (RFC 3261 §19.3)
    /// is looked up.
    var fromParameters = Span(0..<0, base: 0)
    var toParameters = Span(0..<0, base: 0)
    /// The Call-ID word (the value without trailing LWS; it cannot fold).
    var callIDValue = Span(0..<0, base: 0)
    var cseqMethod = Span(0..<0, base: 0)
    var cseqNumber: UInt32 = 0
    var contentLengthValue: Int32 = 0
    var maxForwardsValue: UInt8 = 0

    package init() {}

    /// The value of the first parameter called `lower` (lower-case) in `span`, as
    /// ``SIPParameters``' subscript returns it (the first one with that name, case-insensitive,
    /// decides; a flag without value reads as nil; unfolded, unquoted). The span was validated
    /// by the parse, so scanning it again cannot fail.
    static func parameter(_ p: UnsafeBufferPointer<UInt8>, in span: Span, named lower: StaticString) -> String? {
        var c = ByteCursor(p, span.range)
        var found: Range<Int>?? = nil
        try? c.parameters { name, value in
            if found == nil, p.equalsLowercase(name, lower) { found = .some(value) }
        }
        guard let value = found ?? nil else { return nil }
        return SIPParameters.unquoted(p.unfoldedString(value))
    }
}
