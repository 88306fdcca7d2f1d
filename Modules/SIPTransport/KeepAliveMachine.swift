import SIPCore

/// Keep-alive settings for one flow.
public struct KeepAliveConfiguration: Sendable, Hashable {
    /// Time between pings. RFC 5626 §4.4.1: each wait is drawn between 80 % and 100 % of it.
    public var interval: Duration
    /// How long to wait for the pong before declaring the flow dead (RFC 5626 §4.4.1: 10 s).
    public var pongTimeout: Duration

    public init(interval: Duration = .seconds(30), pongTimeout: Duration = .seconds(10)) {
        self.interval = interval
        self.pongTimeout = pongTimeout
    }

    /// The longest time from the last proof of life to the "flow dead" report.
    public var detectionBound: Duration { interval + pongTimeout }
}

/// RFC 5626 §4.4 client keep-alive for one flow: double-CRLF ping / single-CRLF pong on
/// TCP and TLS (§4.4.1), a WebSocket Ping / Pong on WS and WSS (RFC 6455 §5.5.2).
///
/// Pure state machine: one method per event, each returns ``Action``s; the owning actor
/// arms the timer on its injected clock, sends the ping and reports the dead flow.
public struct KeepAliveMachine: Sendable {
    private enum State: Sendable, Equatable {
        /// Not running (before ``start()`` or after ``stop()``).
        case stopped
        /// §4.4.1: waiting for the next ping time.
        case idle
        /// §4.4.1: ping sent, waiting for the pong (or any traffic) until the timeout.
        case awaitingPong
        /// No answer: the flow is reported dead; nothing more happens.
        case dead
    }

    public enum Action: Sendable, Equatable {
        /// (Re)arm the single keep-alive timer; a previous one is cancelled.
        case armTimer(after: Duration)
        /// Send a ping (CRLFCRLF, or a WebSocket Ping).
        case sendPing
        /// Report the flow dead with this reason and close it.
        case flowDead(reason: String)
    }

    public let configuration: KeepAliveConfiguration
    private let jitter: (any IdentifierSource)?
    private var state = State.stopped

    /// - Parameters:
    ///   - configuration: the ping interval and how long to wait for the pong.
    ///   - jitter: draws each wait in [80 %, 100 %] of the interval; nil = exact interval.
    public init(configuration: KeepAliveConfiguration, jitter: (any IdentifierSource)? = nil) {
        self.configuration = configuration
        self.jitter = jitter
    }

    public var isDead: Bool { state == .dead }

    public mutating func start() -> [Action] {
        guard state == .stopped else { return [] }
        state = .idle
        return [.armTimer(after: nextWait())]
    }

    public mutating func timerFired() -> [Action] {
        switch state {
        case .idle:
            state = .awaitingPong
            // The pong timer is armed before the ping goes out: sending suspends (flush), and a
            // pong that arrives meanwhile re-arms the interval timer, which must not then be
            // replaced by this pong timeout.
            return [.armTimer(after: configuration.pongTimeout), .sendPing]
        case .awaitingPong:
            state = .dead
            return [.flowDead(reason: "no keep-alive answer within \(configuration.pongTimeout) (RFC 5626 §4.4.1)")]
        case .stopped, .dead:
            return []
        }
    }

    /// A pong arrived, or any inbound traffic (which proves the flow alive just as well).
    public mutating func pongReceived() -> [Action] {
        guard state == .awaitingPong else { return [] }
        state = .idle
        return [.armTimer(after: nextWait())]
    }

    public mutating func stop() {
        if state != .dead { state = .stopped }
    }

    private func nextWait() -> Duration {
        guard let jitter else { return configuration.interval }
        let fraction = 0.8 + 0.2 * Double(jitter.nextUInt64() >> 11) / Double(1 << 53)
        return configuration.interval * fraction
    }
}
