import AstraJSON
import Synchronization

/// Writes a tool's events to standard output: one JSON object per line, or one text line.
///
/// Every JSON event starts with `"event"` and `"t"` (whole milliseconds since the tool
/// started), then the fields in the order given:
/// `{"event":"registered","t":42,"expires":3600}`. Safe to call from any task.
public final class EventWriter: Sendable {
    public let format: OutputFormat
    private let sink: any OutputSink
    private let elapsed: @Sendable () -> Duration
    private let lock = Mutex(())

    /// A writer whose `t` is measured on `clock` from now (tests pass a ``TestClock``-like clock).
    public init<C: Clock>(format: OutputFormat, sink: any OutputSink, clock: C) where C.Duration == Duration {
        let start = clock.now
        self.format = format
        self.sink = sink
        self.elapsed = { start.duration(to: clock.now) }
    }

    /// A writer on the continuous clock.
    public convenience init(format: OutputFormat, sink: any OutputSink = FileDescriptorSink.standardOutput) {
        self.init(format: format, sink: sink, clock: ContinuousClock())
    }

    /// Milliseconds since start, as written in `"t"`.
    public var milliseconds: Int {
        let (seconds, attoseconds) = elapsed().components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Writes one event. `text` replaces the default `key=value` rendering in text mode.
    public func emit(_ event: String, _ fields: JSONObject = [:], text: String? = nil) {
        write(render(event, fields, text: text))
    }

    /// The line ``emit(_:_:text:)`` would write now (with its newline), for a caller that writes
    /// many events at once with ``write(_:)`` (one system call for a batch).
    public func render(_ event: String, _ fields: JSONObject = [:], text: String? = nil) -> String {
        let t = milliseconds
        switch format {
        case .json:
            // Written in one pass (no intermediate object): the same text as
            // JSONObject([event, t] + fields without event/t).jsonText.
            var out = "{\"event\":"
            out.reserveCapacity(96 + 32 * fields.entries.count)
            JSONValue.writeString(event, to: &out)
            out += ",\"t\":"
            out += String(t)
            for entry in fields.entries where entry.key != "event" && entry.key != "t" {
                out += ","
                JSONValue.writeString(entry.key, to: &out)
                out += ":"
                entry.value.write(to: &out)
            }
            out += "}\n"
            return out
        case .text:
            return Self.textLine(event, fields, t: t, text: text) + "\n"
        }
    }

    /// Writes a JSON record that is not an event (e.g. a line object from `astra-qr decode`).
    public func record(_ value: JSONValue) { write(value.jsonText + "\n") }

    /// Writes raw text (e.g. `--raw` payloads or a rendered QR code).
    public func write(_ text: String) { lock.withLock { _ in sink.write(text) } }

    /// `[   1.234] registered expires=3600 transport=udp`.
    static func textLine(_ event: String, _ fields: JSONObject, t: Int, text: String?) -> String {
        let stamp = "[" + pad(String(t / 1000), to: 4) + "." + pad(String(t % 1000), to: 3, with: "0") + "] "
        if let text { return stamp + text }
        let pairs = fields.entries.map { entry -> String in
            if case .string(let value) = entry.value, !value.contains(" ") { return "\(entry.key)=\(value)" }
            return "\(entry.key)=\(entry.value.jsonText)"
        }
        return stamp + ([event] + pairs).joined(separator: " ")
    }

    private static func pad(_ text: String, to width: Int, with fill: Character = " ") -> String {
        String(repeating: fill, count: max(0, width - text.count)) + text
    }
}
