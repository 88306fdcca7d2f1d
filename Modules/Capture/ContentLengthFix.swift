/// Redaction shortens a body (`inline:<key>` becomes `inline:<redacted>`), so a redacted
/// message's Content-Length can overstate its body, and a dissector then reads the message as
/// truncated (Wireshark stops at the SIP layer and never sets up RTP from the SDP). This
/// rewrites the Content-Length (or compact `l`, RFC 3261 §7.3.3) value to the body's real
/// length; a message without a header/body separator or without the header is left alone.
enum ContentLengthFix {
    static func apply(_ message: [UInt8]) -> [UInt8] {
        guard let end = headerEnd(message) else { return message }
        let bodyLength = message.count - end
        var lineStart = 0
        while lineStart < end {
            var lineEnd = lineStart
            while lineEnd < end && message[lineEnd] != 0x0A { lineEnd += 1 }
            if let valueRange = contentLengthValue(message, lineStart..<lineEnd) {
                let current = message[valueRange]
                let wanted = Array(String(bodyLength).utf8)
                guard Array(current) != wanted else { return message }
                return Array(message[..<valueRange.lowerBound]) + wanted + Array(message[valueRange.upperBound...])
            }
            lineStart = lineEnd + 1
        }
        return message
    }

    /// The index after the blank line (`\r\n\r\n`, or a bare `\n\n`).
    static func headerEnd(_ m: [UInt8]) -> Int? {
        var i = 0
        while i + 1 < m.count {
            if m[i] == 0x0A && m[i + 1] == 0x0A { return i + 2 }
            if i + 3 < m.count && m[i] == 0x0D && m[i + 1] == 0x0A && m[i + 2] == 0x0D && m[i + 3] == 0x0A {
                return i + 4
            }
            i += 1
        }
        return nil
    }

    /// The digits of a `Content-Length:` / `l:` line (case-insensitive name, optional spaces).
    static func contentLengthValue(_ m: [UInt8], _ line: Range<Int>) -> Range<Int>? {
        var i = line.lowerBound
        var name: [UInt8] = []
        while i < line.upperBound && m[i] != UInt8(ascii: ":") && m[i] != 0x20 && m[i] != 0x09 {
            name.append(m[i] | 0x20)
            i += 1
        }
        guard name == Array("content-length".utf8) || name == [UInt8(ascii: "l")] else { return nil }
        while i < line.upperBound && (m[i] == 0x20 || m[i] == 0x09) { i += 1 }
        guard i < line.upperBound && m[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        while i < line.upperBound && (m[i] == 0x20 || m[i] == 0x09) { i += 1 }
        let start = i
        while i < line.upperBound && m[i] >= 0x30 && m[i] <= 0x39 { i += 1 }
        return i > start ? start..<i : nil
    }
}
