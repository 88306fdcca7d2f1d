/// One declared change made to a torture message before it was sent (shown in the output).
public struct TortureChange: Sendable, Hashable {
    public var edit: TortureEdit
    /// The bytes replaced, as text (lossy for non-UTF-8), and what replaced them.
    public var from: String
    public var to: String

    public init(_ edit: TortureEdit, from: String, to: String) {
        self.edit = edit
        self.from = from
        self.to = to
    }
}

/// Applies a case's declared edits (``TortureEdit``) to its bytes and changes nothing else:
/// every other octet, line end, fold and odd character is sent as the RFC has it.
///
/// It works on the raw header section, not on a parsed message (a parser would normalise what
/// the messages test): it finds the first `Via`/`v` header field (RFC 3261 §20.42, §7.3.3
/// compact form), steps over its sent-protocol (LWS and folds allowed around the `/`s, as
/// `wsinv` has them) and replaces the sent-by; and appends to the `tag` parameter of the
/// first `From`/`f` field outside quotes and `<>`. An edit whose field is not found is skipped.
public struct TortureRewriter: Sendable {
    /// The sent-by written into the Via: `ip:port` of the local socket.
    public var sentBy: String
    /// Appended to the From tag, e.g. `-k3j9x`.
    public var tagSuffix: String

    public init(sentBy: String, tagSuffix: String) {
        self.sentBy = sentBy
        self.tagSuffix = tagSuffix
    }

    /// The message with `edits` applied, and the changes made.
    public func apply(_ edits: [TortureEdit], to message: [UInt8]) -> (bytes: [UInt8], changes: [TortureChange]) {
        var bytes = message
        var changes: [TortureChange] = []
        for edit in edits {
            switch edit {
            case .viaSentBy:
                guard let range = Self.viaSentByRange(bytes) else { continue }
                changes.append(TortureChange(edit, from: Self.text(bytes[range]), to: sentBy))
                bytes.replaceSubrange(range, with: Array(sentBy.utf8))
            case .fromTag:
                guard let range = Self.fromTagRange(bytes) else { continue }
                let old = Self.text(bytes[range])
                changes.append(TortureChange(edit, from: old, to: old + tagSuffix))
                bytes.insert(contentsOf: Array(tagSuffix.utf8), at: range.upperBound)
            }
        }
        return (bytes, changes)
    }

    static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Scanning the header section

    /// Where the header section ends (the empty line), or the end of the bytes.
    static func headerEnd(_ b: [UInt8]) -> Int {
        var i = 0
        while i + 3 < b.count {
            if b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 { return i + 2 }
            i += 1
        }
        return b.count
    }

    /// The value range of the first header field called `names` (lower case): from after the
    /// colon to the CRLF that is not followed by a fold.
    static func fieldValue(_ b: [UInt8], names: [String]) -> Range<Int>? {
        let end = headerEnd(b)
        guard var line = nextLine(b, from: 0, end: end) else { return nil }  // skip the start line
        while line < end {
            var i = line
            while i < end, isTokenByte(b[i]) { i += 1 }
            let name = String(decoding: b[line..<i].map(lower), as: UTF8.self)
            var j = i
            while j < end, b[j] == 0x20 || b[j] == 0x09 { j += 1 }
            if i > line, j < end, b[j] == UInt8(ascii: ":"), names.contains(name) {
                var stop = j + 1
                while stop < end {
                    if b[stop] == 13, stop + 2 < b.count, b[stop + 1] == 10, b[stop + 2] == 0x20 || b[stop + 2] == 0x09
                    {
                        stop += 3
                    } else if b[stop] == 13 {
                        break
                    } else {
                        stop += 1
                    }
                }
                return (j + 1)..<stop
            }
            guard let next = nextLine(b, from: line, end: end) else { return nil }
            line = next
        }
        return nil
    }

    /// The start of the line after the one at `from` (a CRLF not followed by a fold).
    static func nextLine(_ b: [UInt8], from: Int, end: Int) -> Int? {
        var i = from
        while i + 1 < end {
            if b[i] == 13 && b[i + 1] == 10 && !(i + 2 < end && (b[i + 2] == 0x20 || b[i + 2] == 0x09)) {
                return i + 2
            }
            i += 1
        }
        return nil
    }

    /// `host[:port]` after `SIP / 2.0 / UDP` in the first Via value.
    static func viaSentByRange(_ b: [UInt8]) -> Range<Int>? {
        guard let value = fieldValue(b, names: ["via", "v"]) else { return nil }
        var i = value.lowerBound
        for part in 0..<3 {
            i = skipLWS(b, i, value.upperBound)
            let start = i
            while i < value.upperBound, isTokenByte(b[i]) { i += 1 }
            guard i > start else { return nil }
            i = skipLWS(b, i, value.upperBound)
            if part < 2 {
                guard i < value.upperBound, b[i] == UInt8(ascii: "/") else { return nil }
                i += 1
            }
        }
        let start = i
        if i < value.upperBound, b[i] == UInt8(ascii: "[") {
            while i < value.upperBound, b[i] != UInt8(ascii: "]") { i += 1 }
        }
        while i < value.upperBound, !Self.endsSentBy(b[i]) { i += 1 }
        return i > start ? start..<i : nil
    }

    /// The tag value of the first From value (after `tag=`, outside quotes and `<>`).
    static func fromTagRange(_ b: [UInt8]) -> Range<Int>? {
        guard let value = fieldValue(b, names: ["from", "f"]) else { return nil }
        var quoted = false
        var angle = false
        var i = value.lowerBound
        while i < value.upperBound {
            let c = b[i]
            if quoted {
                if c == UInt8(ascii: "\\") { i += 1 } else if c == UInt8(ascii: "\"") { quoted = false }
            } else if c == UInt8(ascii: "\"") {
                quoted = true
            } else if c == UInt8(ascii: "<") {
                angle = true
            } else if c == UInt8(ascii: ">") {
                angle = false
            } else if c == UInt8(ascii: ";"), !angle {
                var k = skipLWS(b, i + 1, value.upperBound)
                let name = k + 3 <= value.upperBound ? b[k..<k + 3].map(lower) : []
                if name == Array("tag".utf8) {
                    k = skipLWS(b, k + 3, value.upperBound)
                    if k < value.upperBound, b[k] == UInt8(ascii: "=") {
                        k = skipLWS(b, k + 1, value.upperBound)
                        let start = k
                        while k < value.upperBound, isTokenByte(b[k]) { k += 1 }
                        if k > start { return start..<k }
                    }
                }
            }
            i += 1
        }
        return nil
    }

    static func skipLWS(_ b: [UInt8], _ from: Int, _ end: Int) -> Int {
        var i = from
        while i < end {
            if b[i] == 0x20 || b[i] == 0x09 {
                i += 1
            } else if b[i] == 13, i + 2 < end, b[i + 1] == 10, b[i + 2] == 0x20 || b[i + 2] == 0x09 {
                i += 3
            } else {
                break
            }
        }
        return i
    }

    static func endsSentBy(_ c: UInt8) -> Bool {
        c == UInt8(ascii: ";") || c == UInt8(ascii: ",") || c == 0x20 || c == 0x09 || c == 13 || c == 10
    }

    /// RFC 3261 §25.1 `token` characters.
    static func isTokenByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("-.!%*_+`'~".utf8).contains(c)
        }
    }

    static func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }
}
