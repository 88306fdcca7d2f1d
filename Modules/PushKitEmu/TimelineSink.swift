/// Where the simulation writes its timeline: a recorder for `run`, a counter for `fuzz`.
public protocol TimelineSink: Sendable {
    /// Records `event` at virtual time `t`.
    mutating func record(_ t: Int64, _ event: TimelineEvent)
}

/// Keeps every event (for `run`, `check` and tests).
public struct TimelineRecorder: TimelineSink {
    /// The events, in order.
    public private(set) var events: [(t: Int64, event: TimelineEvent)] = []
    public init() {}
    public mutating func record(_ t: Int64, _ event: TimelineEvent) { events.append((t, event)) }
}

/// Counts events and keeps nothing (the fuzz hot path).
package struct CountingSink: TimelineSink {
    /// Events recorded.
    public private(set) var count = 0
    public init() {}
    public mutating func record(_ t: Int64, _ event: TimelineEvent) { count &+= 1 }
}
