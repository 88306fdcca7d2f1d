import SIPCore

/// What the one redactor leaves, made readable for packet dissectors (pcap and HEP only).
///
/// The redactor writes an SDES key as `inline:<redacted>` (RFC 4568 §9.2 keys are base64);
/// Wireshark's SDP dissector raises an exception on a key that is not base64, stops, and so
/// never sets up the RTP streams from that SDP. In the pcap and HEP exports the placeholder
/// becomes ``standIn``: valid base64 of the 30 ASCII bytes `redactedredacted…`, the size of an
/// AES_CM_128 key and salt — it decodes to the word, not to a key. Then the Content-Length
/// follows the shorter body (``ContentLengthFix``). The trace file and stderr keep the
/// redactor's own `<redacted>`.
enum DissectableRedaction {
    /// base64("redactedredactedredactedredact").
    static let standIn = Array("cmVkYWN0ZWRyZWRhY3RlZHJlZGFjdGVkcmVkYWN0".utf8)
    static let placeholder = Array(("inline:" + Redaction.placeholder).utf8)

    static func apply(_ redacted: [UInt8]) -> [UInt8] {
        ContentLengthFix.apply(replaceKeys(redacted))
    }

    static func replaceKeys(_ message: [UInt8]) -> [UInt8] {
        guard let first = message.firstRange(of: placeholder) else { return message }
        var out = Array(message[..<first.lowerBound])
        var rest = message[first.lowerBound...]
        while let range = rest.firstRange(of: placeholder) {
            out += rest[..<range.lowerBound]
            out += Array("inline:".utf8) + standIn
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
