import AstraJSON
import Glibc
import SIPCore
import SIPTransport
import ToolSupport

/// The `--sip-trace-file` format: one JSON object per SIP message (JSON Lines), already
/// redacted, in the order the messages crossed the sockets:
///
///     {"event":"sip","t":12,"time":"2026-11-30T07:05:01.123456Z","direction":"sent",
///      "transport":"wss","local":"127.0.0.1:40112","remote":"127.0.0.1:8443","bytes":412,
///      "message":"REGISTER sip:pbx.example.com SIP/2.0\r\n…"}
///
/// `t` is milliseconds since the trace began, `time` the wall clock (UTC, microseconds),
/// `bytes` the message's length as it was sent or received (before redaction). A message that
/// is not UTF-8 is stored with U+FFFD for the bytes that are not. `astra-trace` reads it back.
extension CapturedPacket {
    /// The trace file line (without the newline). `start` is when the trace began.
    public func traceLine(since start: Time, originalLength: Int? = nil) -> String {
        let t = Int((time.seconds(since: start) * 1000).rounded(.down))
        let object: JSONObject = [
            "event": .string(content.rawValue),
            "t": .int(max(0, t)),
            "time": .string(SIPTraceFormatter.iso8601(seconds: time.seconds, nanoseconds: time.nanoseconds)),
            "direction": .string(direction.rawValue),
            "transport": .string(transport.rawValue),
            "local": .string(local.description),
            "remote": .string(remote.description),
            "bytes": .int(originalLength ?? bytes.count),
            "message": .string(String(decoding: bytes, as: UTF8.self)),
        ]
        return object.jsonText
    }

    /// Reads one trace file line back; `where` names it in errors (`trace.jsonl:3`).
    public init(traceLine bytes: [UInt8], where location: String) throws(CaptureError) {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch {
            throw CaptureError(.invalidTrace, "\(location): not JSON (\(error))")
        }
        func string(_ key: String) throws(CaptureError) -> String {
            guard case .string(let value)? = json[key] else {
                throw CaptureError(.invalidTrace, "\(location): no \"\(key)\" string: not a --sip-trace-file record")
            }
            return value
        }
        guard let content = Content(rawValue: try string("event")) else {
            throw CaptureError(.invalidTrace, "\(location): \"event\" is not sip, rtp or rtcp")
        }
        guard let time = Self.parseTime(try string("time")) else {
            throw CaptureError(.invalidTrace, "\(location): \"time\" is not YYYY-MM-DDTHH:MM:SS.ffffffZ")
        }
        guard let direction = Direction(rawValue: try string("direction")) else {
            throw CaptureError(.invalidTrace, "\(location): \"direction\" is not sent or received")
        }
        guard let transport = TransportKind(rawValue: try string("transport")) else {
            throw CaptureError(.invalidTrace, "\(location): \"transport\" is not udp, tcp, tls, ws or wss")
        }
        guard let local = Self.parseAddress(try string("local")),
            let remote = Self.parseAddress(try string("remote"))
        else {
            throw CaptureError(.invalidTrace, "\(location): \"local\"/\"remote\" are not IP:PORT")
        }
        self.init(
            time: time, direction: direction, content: content, transport: transport, local: local, remote: remote,
            bytes: Array(try string("message").utf8))
    }

    /// `127.0.0.1:5060` or `[::1]:5060`.
    static func parseAddress(_ text: String) -> SocketAddress? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return SocketAddress(ip: host, port: port)
    }

    /// `2026-11-30T07:05:01.123456Z` (what ``SIPTraceFormatter/iso8601(seconds:nanoseconds:)`` writes).
    /// The fraction has at most the six digits the format keeps: a finer time could not be
    /// written again, so a line read back and written out would name another instant.
    static func parseTime(_ text: String) -> Time? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int32 = 0
            for b in bytes[range] {
                guard b >= 0x30 && b <= 0x39 else { return nil }
                value = value * 10 + Int32(b - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var nanoseconds = 0
        if bytes[19] == UInt8(ascii: ".") {
            let digits = bytes[20..<(bytes.count - 1)]
            guard !digits.isEmpty, digits.count <= 6, let fraction = number(20..<(bytes.count - 1)) else { return nil }
            nanoseconds = Int(fraction)
            for _ in digits.count..<9 { nanoseconds *= 10 }
        } else if bytes.count != 20 {
            return nil
        }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Time(seconds: Int(timegm(&parts)), nanoseconds: nanoseconds)
    }
}
