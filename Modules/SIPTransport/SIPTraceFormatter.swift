import Glibc
import SIPCore

/// The `--sip-trace` text of one message (sngrep-like): a header line with timestamp,
/// direction, transport and both addresses, then the message with every secret redacted by
/// the one redactor (``Redaction``: digest `response`/`rspauth`, every SDES `inline:` key,
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
        var body = String(decoding: Redaction.redact(bytes: message), as: UTF8.self)
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
