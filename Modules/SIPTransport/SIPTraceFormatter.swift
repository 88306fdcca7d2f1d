import Glibc

/// The `--sip-trace` text of one message (sngrep-like): a header line with timestamp,
/// direction, transport and both addresses, then the message with credentials redacted.
///
/// Redacted: in `Authorization` / `Proxy-Authorization` the digest `response`, `nonce`,
/// `cnonce` and `opaque` values (RFC 3261 §22.4, RFC 7616 §3.4); in `Authentication-Info`
/// `rspauth`, `nextnonce`, `cnonce`; SDP `a=crypto` inline keys (RFC 4568 §6.1).
public enum SIPTraceFormatter {
    public enum Direction: String, Sendable {
        case sent = "SENT"
        case received = "RECV"
    }

    /// The full trace block, ending with a blank line.
    public static func format(
        direction: Direction, transport: TransportKind, local: SocketAddress?, remote: SocketAddress?,
        timestamp: (seconds: Int, nanoseconds: Int), message: [UInt8]
    ) -> String {
        let arrow = direction == .sent ? "->" : "<-"
        let localText = local?.description ?? "?"
        let remoteText = remote?.description ?? "?"
        var text = "----- \(iso8601(seconds: timestamp.seconds, nanoseconds: timestamp.nanoseconds)) "
        text +=
            "\(direction.rawValue) \(transport.viaToken) \(localText) \(arrow) \(remoteText) (\(message.count) bytes)\n"
        var body = redact(String(decoding: message, as: UTF8.self))
        if !body.hasSuffix("\n") { body += "\n" }
        return text + body + "\n"
    }

    /// The wall-clock time now (CLOCK_REALTIME), for trace stamps.
    public static func now() -> (seconds: Int, nanoseconds: Int) {
        let t = WireTime.now()
        return (t.seconds, t.nanoseconds)
    }

    /// `2026-11-30T07:05:01.123456Z`.
    public static func iso8601(seconds: Int, nanoseconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let micros = String(nanoseconds / 1000)
        let fraction = String(repeating: "0", count: max(0, 6 - micros.count)) + micros
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(fraction)Z"
    }

    private static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization"]
    private static let credentialParameters: Set<String> = ["response", "nonce", "cnonce", "opaque"]
    private static let infoParameters: Set<String> = ["rspauth", "nextnonce", "cnonce"]

    /// The message text with every credential value replaced by `<redacted>`.
    public static func redact(_ text: String) -> String {
        // Split on LF bytes: "\r\n" is one Character in Swift and would not split on "\n".
        var lines = Array(text.utf8).split(separator: 10, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        var inHeaders = true
        var currentHeader = ""
        for i in lines.indices {
            let line = lines[i]
            if inHeaders {
                let bare = line.hasSuffix("\r") ? String(line.dropLast()) : line
                if bare.isEmpty && i > 0 {
                    inHeaders = false
                    continue
                }
                if let first = bare.first, first == " " || first == "\t" {
                    // Folded continuation of the previous header (RFC 3261 §7.3.1).
                } else if let colon = bare.firstIndex(of: ":") {
                    currentHeader = bare[..<colon].trimmingSpaces().lowercased()
                } else {
                    currentHeader = ""
                }
                if credentialHeaders.contains(currentHeader) {
                    lines[i] = redactParameters(line, names: credentialParameters)
                } else if currentHeader == "authentication-info" {
                    lines[i] = redactParameters(line, names: infoParameters)
                }
            } else if line.hasPrefix("a=crypto:") {
                lines[i] = redactCryptoKey(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:KEY|2^20` → `inline:<redacted>|2^20`.
    static func redactCryptoKey(_ line: String) -> String {
        let chars = Array(line)
        let marker = Array("inline:")
        guard chars.count >= marker.count else { return line }
        for start in 0...(chars.count - marker.count) where Array(chars[start..<(start + marker.count)]) == marker {
            var end = start + marker.count
            while end < chars.count, chars[end] != " ", chars[end] != "|", chars[end] != "\r" { end += 1 }
            let head = String(chars[0..<(start + marker.count)])
            let tail = String(chars[end...])
            return head + "<redacted>" + tail
        }
        return line
    }

    /// Replaces `name=value` / `name="value"` for the given parameter names.
    static func redactParameters(_ line: String, names: Set<String>) -> String {
        let chars = Array(line)
        var out = ""
        var i = 0
        while i < chars.count {
            // A parameter name starts after ' ', ',', ':' or '\t'.
            if chars[i].isLetter, i == 0 || [" ", ",", ":", "\t"].contains(chars[i - 1]) {
                var j = i
                while j < chars.count, chars[j].isLetter || chars[j] == "-" { j += 1 }
                let name = String(chars[i..<j]).lowercased()
                var k = j
                while k < chars.count, chars[k] == " " { k += 1 }
                if names.contains(name), k < chars.count, chars[k] == "=" {
                    out += String(chars[i...k])
                    k += 1
                    while k < chars.count, chars[k] == " " { k += 1 }
                    if k < chars.count, chars[k] == "\"" {
                        var m = k + 1
                        while m < chars.count, chars[m] != "\"" { m += chars[m] == "\\" ? 2 : 1 }
                        out += "\"<redacted>\""
                        i = min(m + 1, chars.count)
                    } else {
                        var m = k
                        while m < chars.count, chars[m] != ",", chars[m] != " ", chars[m] != "\r" { m += 1 }
                        out += "<redacted>"
                        i = m
                    }
                    continue
                }
                out += String(chars[i..<j])
                i = j
                continue
            }
            out.append(chars[i])
            i += 1
        }
        return out
    }
}

/// The `--sip-trace` sink: formats each message with ``SIPTraceFormatter`` and writes it
/// (stderr by default). Transports call it for every SIP message sent and received, where it
/// goes to or comes from the socket. An `observe` hook sees the same messages with the same
/// ``WireTime`` stamp the trace prints (for timings measured on the wire, not when a tool
/// gets round to its events); with `write` nil nothing is formatted.
public struct SIPTrace: Sendable {
    /// One message on the wire, as the trace stamps it.
    public struct WireEvent: Sendable {
        public let direction: SIPTraceFormatter.Direction
        public let message: [UInt8]
        public let at: WireTime
    }

    private let write: (@Sendable (String) -> Void)?
    private let observe: (@Sendable (WireEvent) -> Void)?

    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
        self.observe = nil
    }

    public init(write: (@Sendable (String) -> Void)?, observe: (@Sendable (WireEvent) -> Void)?) {
        self.write = write
        self.observe = observe
    }

    public static let standardError = SIPTrace { StandardError.write($0) }

    /// `--sip-trace` on stderr when `traced`, and `observe` either way.
    public static func observing(traced: Bool, _ observe: @escaping @Sendable (WireEvent) -> Void) -> SIPTrace {
        guard traced else { return SIPTrace(write: nil, observe: observe) }
        return SIPTrace(write: { @Sendable text in StandardError.write(text) }, observe: observe)
    }

    /// `at`: when the message crossed the socket (taken before a send, so its answer can
    /// never be stamped earlier than the request).
    public func record(
        _ direction: SIPTraceFormatter.Direction, transport: TransportKind, local: SocketAddress?,
        remote: SocketAddress?, message: [UInt8], at: WireTime = .now()
    ) {
        observe?(WireEvent(direction: direction, message: message, at: at))
        guard let write else { return }
        write(
            SIPTraceFormatter.format(
                direction: direction, transport: transport, local: local, remote: remote,
                timestamp: (at.seconds, at.nanoseconds), message: message))
    }
}
