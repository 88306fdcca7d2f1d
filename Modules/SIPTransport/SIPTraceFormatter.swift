import Glibc
import SIPCore

/// The `--sip-trace` text of one message (sngrep-like): a header line with timestamp,
/// direction, transport and both addresses, then the message with every secret redacted by
/// the one redactor (`Redaction`: digest `response`/`rspauth`, every SDES `inline:` key,
/// `a=ice-pwd`, `pn-prid` push tokens, URI passwords, bearer tokens).
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
        var bytes = Redaction.redact(bytes: message)
        // A peer's ESC, BEL or NUL must not reach the terminal: every control byte but TAB, CR
        // and LF is shown as '.'.
        for i in bytes.indices where (bytes[i] < 0x20 && bytes[i] != 9 && bytes[i] != 10 && bytes[i] != 13) || bytes[i] == 0x7F {
            bytes[i] = UInt8(ascii: ".")
        }
        var body = String(decoding: bytes, as: UTF8.self)
        if !body.hasSuffix("\n") { body += "\n" }
        return text + body + "\n"
    }

    /// The trace block of one recorded message.
    public static func format(_ message: SIPTrace.Message) -> String {
        format(
            direction: message.direction, transport: message.transport, local: message.local,
            remote: message.remote, timestamp: message.timestamp, message: message.bytes)
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
}

/// The `--sip-trace` hook of every transport: each SIP message sent and received, where it
/// crosses the socket and after TLS/WebSocket decoding, goes to one sink. The default sink
/// formats it with ``SIPTraceFormatter`` (stderr); others export it (a ladder, a JSON trace
/// file, pcap, HEP — the Capture module), always through the one redactor.
public struct SIPTrace: Sendable {
    /// One SIP message as a transport saw it: the decoded message (not yet redacted), both
    /// socket addresses and the wall-clock time.
    public struct Message: Sendable {
        public let direction: SIPTraceFormatter.Direction
        public let transport: TransportKind
        public let local: SocketAddress?
        public let remote: SocketAddress?
        public let timestamp: (seconds: Int, nanoseconds: Int)
        public let bytes: [UInt8]

        public init(
            direction: SIPTraceFormatter.Direction, transport: TransportKind, local: SocketAddress?,
            remote: SocketAddress?, timestamp: (seconds: Int, nanoseconds: Int), bytes: [UInt8]
        ) {
            self.direction = direction
            self.transport = transport
            self.local = local
            self.remote = remote
            self.timestamp = timestamp
            self.bytes = bytes
        }
    }

    private let sink: @Sendable (Message) -> Void

    /// A trace that hands every message to `sink`.
    public init(sink: @escaping @Sendable (Message) -> Void) { self.sink = sink }

    /// A trace that writes the formatted text of every message with `write`.
    public init(write: @escaping @Sendable (String) -> Void) {
        self.sink = { write(SIPTraceFormatter.format($0)) }
    }

    public static let standardError = SIPTrace { StandardError.write($0) }

    /// `base` (nil: none) with `observe` seeing every message first, with the same stamp
    /// (``WireTime``): timings measured on the wire agree with the trace (astra-register's
    /// `timings_ms`). Nothing is formatted for the observer.
    public static func observing(_ base: SIPTrace?, _ observe: @escaping @Sendable (Message) -> Void) -> SIPTrace {
        guard let base else { return SIPTrace(sink: observe) }
        return SIPTrace { message in
            observe(message)
            base.sink(message)
        }
    }

    /// `at`: when the message crossed the socket (taken before a send, so its answer can never
    /// be stamped earlier than the request).
    public func record(
        _ direction: SIPTraceFormatter.Direction, transport: TransportKind, local: SocketAddress?,
        remote: SocketAddress?, message: [UInt8], at: WireTime = .now()
    ) {
        sink(
            Message(
                direction: direction, transport: transport, local: local, remote: remote,
                timestamp: (at.seconds, at.nanoseconds), bytes: message))
    }
}
