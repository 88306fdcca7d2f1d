import SIPCore

/// Reconnect back-off settings (RFC 5626 §4.5).
public struct ReconnectConfiguration: Sendable, Hashable {
    /// `base-time`: the wait after the first failure (RFC 5626 suggests 30 s; phones use less).
    public var baseTime: Duration
    /// `max-time`: the cap on the wait (RFC 5626: 1800 s).
    public var maxTime: Duration

    public init(baseTime: Duration = .seconds(2), maxTime: Duration = .seconds(120)) {
        self.baseTime = baseTime
        self.maxTime = maxTime
    }

    /// The un-jittered wait after `failures` consecutive failures:
    /// `min(max-time, base-time * 2^failures)` (RFC 5626 §4.5).
    public func ceiling(failures: Int) -> Duration {
        var wait = baseTime
        for _ in 0..<min(failures, 40) {
            wait = wait * 2
            if wait >= maxTime { return maxTime }
        }
        return min(wait, maxTime)
    }
}

/// When to (re)connect a flow: capped exponential back-off with jitter (RFC 5626 §4.5: the
/// actual wait is uniformly random between 50 % and 100 % of the ceiling).
///
/// Pure state machine returning ``Action``s; the ``SIPFlow`` actor runs the timer on its
/// injected clock and reports every decision as an event.
public struct ReconnectMachine: Sendable {
    private enum State: Sendable, Equatable {
        /// Not started, or stopped by the user.
        case idle
        /// An attempt (numbered from 1 since the flow was last up) is in progress.
        case connecting(attempt: Int)
        /// The flow is up.
        case connected
        /// Waiting for the back-off timer before attempt `attempt`.
        case waiting(attempt: Int)
    }

    public enum Action: Sendable, Equatable {
        /// Start connection attempt number `attempt`.
        case connect(attempt: Int)
        /// Arm the back-off timer; attempt `attempt` follows after `after`.
        case scheduleRetry(attempt: Int, after: Duration)
    }

    public let configuration: ReconnectConfiguration
    private let jitter: any IdentifierSource
    private var state = State.idle
    private var failures = 0

    public init(configuration: ReconnectConfiguration, jitter: any IdentifierSource) {
        self.configuration = configuration
        self.jitter = jitter
    }

    /// Consecutive failed attempts since the flow was last up.
    public var consecutiveFailures: Int { failures }

    public mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        state = .connecting(attempt: 1)
        return [.connect(attempt: 1)]
    }

    public mutating func connectSucceeded() -> [Action] {
        guard case .connecting = state else { return [] }
        state = .connected
        failures = 0
        return []
    }

    public mutating func connectFailed() -> [Action] {
        guard case .connecting(let attempt) = state else { return [] }
        failures += 1
        state = .waiting(attempt: attempt + 1)
        return [.scheduleRetry(attempt: attempt + 1, after: wait(failures: failures))]
    }

    /// The flow that was up died (keep-alive timeout, peer close, error).
    public mutating func flowDied() -> [Action] {
        guard state == .connected else { return [] }
        failures = 0
        state = .waiting(attempt: 1)
        return [.scheduleRetry(attempt: 1, after: wait(failures: 0))]
    }

    public mutating func retryTimerFired() -> [Action] {
        guard case .waiting(let attempt) = state else { return [] }
        state = .connecting(attempt: attempt)
        return [.connect(attempt: attempt)]
    }

    public mutating func stop() {
        state = .idle
        failures = 0
    }

    private func wait(failures: Int) -> Duration {
        let ceiling = configuration.ceiling(failures: failures)
        let fraction = 0.5 + 0.5 * Double(jitter.nextUInt64() >> 11) / Double(1 << 53)
        return ceiling * fraction
    }
}
