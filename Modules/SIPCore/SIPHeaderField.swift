/// Where one header line sits in its message's byte storage (offsets from the storage start).
package struct HeaderSlot: Sendable, Hashable {
    /// First byte of the name.
    package var lineStart: Int32
    package var nameEnd: Int32
    /// First byte of the value (after `HCOLON` and any leading LWS).
    package var valueStart: Int32
    /// End of the raw value: before the line's final CRLF (or LF).
    package var valueEnd: Int32
    /// After the line's final CRLF (or LF).
    package var lineEnd: Int32
    package var known: KnownHeader?

    package var valueRange: Range<Int> { Int(valueStart)..<Int(valueEnd) }
    package var nameRange: Range<Int> { Int(lineStart)..<Int(nameEnd) }
    package var lineRange: Range<Int> { Int(lineStart)..<Int(lineEnd) }
}

/// One header line of a message: its raw name and raw value (byte-exact), and their decoded
/// forms (RFC 3261 §7.3).
public struct SIPHeaderField: Sendable {
    let storage: [UInt8]
    let slot: HeaderSlot

    /// The name, compared case-insensitively with compact forms expanded.
    public var name: SIPHeaderName {
        if let known = slot.known { return SIPHeaderName(known: known) }
        return SIPHeaderName(rawName)
    }

    /// The name exactly as written (`v`, `MaX-fOrWaRdS`).
    public var rawName: String { String(decoding: storage[slot.nameRange], as: UTF8.self) }

    /// The name's octets exactly as written.
    public var rawNameBytes: ArraySlice<UInt8> { storage[slot.nameRange] }

    /// The value's octets exactly as written: from the first non-LWS octet after the colon to the
    /// line's final CRLF, folding and trailing whitespace included.
    public var rawValueBytes: ArraySlice<UInt8> { storage[slot.valueRange] }

    /// ``rawValueBytes`` decoded as UTF-8 (invalid octets repaired).
    public var rawValue: String { String(decoding: rawValueBytes, as: UTF8.self) }

    /// The value with each folding run replaced by one SP and trailing whitespace removed
    /// (RFC 3261 §7.3.1).
    public var value: String {
        storage.withUnsafeBufferPointer { p in
            p.unfoldedString(Int(slot.valueStart)..<p.endBeforeTrailingLWS(slot.valueRange))
        }
    }

    /// The whole line as written, including its line terminator.
    public var rawLineBytes: ArraySlice<UInt8> { storage[slot.lineRange] }
}
