/// What the parser learned about the headers every transaction reads, recorded in the same pass
/// that validates them (RFC 3261 §8.1.1 mandatory headers, §17.1.3 / §17.2.3 transaction
/// matching, §12.1 dialog tags, §18.3 framing): the slot of the first line of each, and the
/// offsets and numbers the validation already produced. The typed accessors of ``SIPHeaders``
/// read from here instead of rescanning every header line on every call.
///
/// Offsets are from the message's first byte, like ``HeaderSlot``'s. Only parsed messages have
/// an index; any edit of the header list drops it (the accessors then scan the lines, as they do
/// for built messages), so an index never describes lines that changed. Recording costs no
/// allocation and no work beyond a few stores: the index is 41 bytes of integers beside the
/// slot array (it is copied with every `SIPHeaders`, so it stays small). What an accessor can
/// find cheaply from the slot is not stored: the Call-ID word and the CSeq method are the
/// value without its trailing LWS (the method is its last token); the `tag` and `branch`
/// parameters are looked up from where the parameters start, only when asked for (the lazy
/// parse, which never asks, pays nothing for them).
package struct HeaderIndex: Sendable, Hashable {
    /// Slot numbers are 16-bit (a smaller index to copy with every `SIPHeaders`); a header
    /// section with more lines than that gets no index (the parser drops it, see
    /// `MessageHeadParser`), so a recorded number is always exact.
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

    /// Where the parameters of the first via-parm of the first Via line start
    /// (`*( SEMI via-params )`, RFC 3261 §20.42); `branch` (§8.1.1.7) is looked up from there.
    var topViaParameters: Int32 = 0
    /// Where the parameters of From and To start (`*( SEMI generic-param )`); `tag` (RFC 3261
    /// §19.3) is looked up from there. They run to the end of the line's value but for LWS.
    var fromParameters: Int32 = 0
    var toParameters: Int32 = 0
    var cseqNumber: UInt32 = 0
    var contentLengthValue: Int32 = 0
    var maxForwardsValue: UInt8 = 0

    package init() {}

    /// The value of the first parameter called `lower` (lower-case) of those starting at `start`
    /// and ending at the first byte that does not continue them (`end` is the line's value end),
    /// as ``SIPParameters``' subscript returns it: the first one with that name
    /// (case-insensitive) decides, a flag without value reads as nil, unfolded, unquoted. The
    /// parameters were validated by the parse, so scanning them again cannot fail.
    static func parameter(
        _ p: UnsafeBufferPointer<UInt8>, from start: Int32, to end: Int32, named lower: StaticString
    ) -> String? {
        var c = ByteCursor(p, Int(start)..<Int(end))
        var found: Range<Int>?? = nil
        try? c.parameters { name, value in
            if found == nil, p.equalsLowercase(name, lower) { found = .some(value) }
        }
        guard let value = found ?? nil else { return nil }
        return SIPParameters.unquoted(p.unfoldedString(value))
    }
}
