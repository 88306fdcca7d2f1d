import PushKitEmu
import Synchronization

/// One line of a live timeline: an emulator event (same names and fields as virtual mode) or a
/// live-only measurement (`caller_ringing`, `latency`…).
public enum LiveEvent: Sendable {
    /// An event with the virtual-mode contract (docs/man/astra-pushsim.md).
    case emu(TimelineEvent)
    /// A live-only event: name and fields.
    case live(String, [(String, JSONField)])

    /// The JSON line at `t` ms.
    public func jsonLine(t: Int64) -> String {
        switch self {
        case .emu(let event): return event.jsonLine(t: t)
        case .live(let name, let fields):
            var line = JSONLine(event: name, t: t)
            for (key, value) in fields {
                switch value {
                case .number(let n): line.add(key, n)
                case .text(let s): line.add(key, s)
                case .flag(let b): line.add(key, b)
                }
            }
            return line.string
        }
    }

    /// The event name.
    public var name: String {
        switch self {
        case .emu(let event): event.jsonFields.name
        case .live(let name, _): name
        }
    }
}

/// The wall-clock timeline of one live scenario: every part (phone, caller, runner) records here
/// with `t` = ms since the scenario started (ContinuousClock, monotonic).
public final class LiveTimeline: Sendable {
    /// The scenario's start.
    public let origin: ContinuousClock.Instant
    private let entries = Mutex<[(t: Int64, event: LiveEvent)]>([])

    public init(origin: ContinuousClock.Instant = .now) { self.origin = origin }

    /// Ms since the start, now.
    public var now: Int64 { Self.ms(origin.duration(to: .now)) }

    /// Records `event` now (or at `t`); returns the time used.
    @discardableResult
    public func record(_ event: LiveEvent, at t: Int64? = nil) -> Int64 {
        let time = t ?? now
        entries.withLock { $0.append((time, event)) }
        return time
    }

    /// Records a virtual-mode event now.
    @discardableResult
    public func record(_ event: TimelineEvent) -> Int64 { record(.emu(event)) }

    /// Every event, in time order (stable for equal times).
    public var events: [(t: Int64, event: LiveEvent)] {
        let all = entries.withLock { $0 }
        return all.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    }

    /// Events named `name`.
    public func events(named name: String) -> [(t: Int64, event: LiveEvent)] { events.filter { $0.event.name == name } }

    static func ms(_ d: Duration) -> Int64 {
        let (s, atto) = d.components
        return s * 1_000 + atto / 1_000_000_000_000_000
    }
}

/// Call-ID ↔ server call index, shared by the caller side and the phone so both name a call by
/// the same small integer (the virtual timeline's `call`).
public final class CallDirectory: Sendable {
    private let map = Mutex<[String: Int32]>([:])

    public init() {}

    /// The index of `callID`, assigning the next one the first time.
    public func index(of callID: String) -> Int32 {
        map.withLock { map in
            if let i = map[callID] { return i }
            let i = Int32(map.count)
            map[callID] = i
            return i
        }
    }

    /// The index if known.
    public func known(_ callID: String) -> Int32? { map.withLock { $0[callID] } }
}
