/// What the parser learned about the headers every transaction reads, recorded in the same pass
/// that validates them (RFC 3261 §8.1.1 mandatory headers, §17.1.3 / §17.2.3 transaction
/// matching, §12.1 dialog tags, §18.3 framing): the slot of the first line of each, and the
/// values the validation already scanned. The typed accessors of ``SIPHeaders`` read from here
/// instead of rescanning every header line on every call.
///
/// Offsets are from the message's first byte, like ``HeaderSlot``'s. Only parsed messages have
/// an index; any edit of the header list drops it (the accessors then scan the lines, as they do
/// for built messages), so an index never describes lines that changed. Recording costs no
/// allocation: the index is a few integers stored beside the slot array.
package struct HeaderIndex: Sendable, Hashable {
    /// A byte range as two offsets (half the size of a `Range<Int>`).
    package struct Span: Sendable, Hashable {
        var start: Int32
        var end: Int32

        init(_ range: Range<Int>, base: Int) {
            start = Int32(range.lowerBound - base)
            end = Int32(range.upperBound - base)
        }

        var range: Range<Int> { Int(start)..<Int(end) }
    }

    /// A header parameter looked up the way ``SIPParameters`` subscripts do: the first one with
    /// that name (case-insensitive) decides; a flag without value reads as nil.
    package enum Parameter: Sendable, Hashable {
        case absent
        case flag
        case value(Span)

        var span: Span? {
            if case .value(let span) = self { return span }
            return nil
        }

        var isAbsent: Bool { self == .absent }
    }

    /// Slot number of the first line of each header, or -1.
    var via: Int32 = -1
    var from: Int32 = -1
    var to: Int32 = -1
    var callID: Int32 = -1
    var cseq: Int32 = -1
    var contact: Int32 = -1
    var contentLength: Int32 = -1
    var maxForwards: Int32 = -1
    var expires: Int32 = -1
    var contentType: Int32 = -1

    /// End of the first via-parm of the first Via line (its parameters included).
    var topViaEnd: Int32 = 0
    /// `branch` of the top Via (RFC 3261 §8.1.1.7).
    var topViaBranch: Parameter = .absent
    /// `tag` of From and To (RFC 3261 §19.3).
    var fromTag: Parameter = .absent
    var toTag: Parameter = .absent
    /// The Call-ID word (the value without trailing LWS; it cannot fold).
    var callIDValue = Span(0..<0, base: 0)
    var cseqNumber: UInt32 = 0
    var cseqMethod = Span(0..<0, base: 0)
    var maxForwardsValue: UInt8 = 0
    var contentLengthValue: Int32 = 0
    /// The first Expires line's delta-seconds; nil when it is absent or does not parse (its
    /// accessor then parses the line and throws, as without an index: Expires is not validated
    /// at parse time).
    var expiresValue: UInt32?

    package init() {}
}

extension HeaderIndex.Parameter {
    /// Records the parameter `name` (lower-case) if it is the first one called so.
    @inline(__always)
    mutating func note(
        _ p: UnsafeBufferPointer<UInt8>, _ name: Range<Int>, _ value: Range<Int>?, matching lower: StaticString,
        base: Int
    ) {
        guard isAbsent, p.equalsLowercase(name, lower) else { return }
        self = value.map { .value(HeaderIndex.Span($0, base: base)) } ?? .flag
    }

    /// The parameter's value as ``SIPParameters``' subscript returns it: unfolded, unquoted.
    func string(_ p: UnsafeBufferPointer<UInt8>) -> String? {
        span.map { SIPParameters.unquoted(p.unfoldedString($0.range)) }
    }
}
