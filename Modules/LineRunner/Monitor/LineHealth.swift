import SIPDialog
import SIPTransport

/// The health of one monitored line as a pure state machine: what the monitor exports as
/// `sip_line_up` and `sip_line_registered`, when it pings, and what it counts.
///
/// The line registers as a phone does, through the one registration path
/// (``LineRegistration`` over a ``SIPFlow``: refresh before the granted expiry, RFC 3261 §10.2.4;
/// reconnect with back-off, RFC 5626 §4.5). On top of it the monitor sends an OPTIONS to the
/// registrar every ping interval (RFC 3261 §11) while the flow is up, each bounded by the ping
/// timeout instead of Timer F. A ping that fails is the monitor's keep-alive failure (RFC 5626
/// §4.4.1): the binding cannot be trusted, the registration is told the flow failed and waits;
/// the next answered ping brings it back and it registers again at once. This is what makes a
/// UDP line, whose flow never dies, go to 0 when its registrar dies; a TCP/TLS/WS line sees the
/// connection end sooner.
///
/// Up: the flow is up and the last ping was answered with a final status below 500 (any answer
/// proves the server is there; 5xx/6xx say it cannot serve). Registered: a 2xx to REGISTER, until
/// the flow dies, a refresh fails or a ping fails. Each event is one `mutating func` returning
/// the actions for the shell; `now` is the monitor's clock (virtual in tests).
public struct LineHealth: Sendable {
    public struct Settings: Sendable, Hashable {
        /// Between the start of one OPTIONS and the next.
        public var pingInterval: Duration
        /// An OPTIONS not answered within this counts as a `timeout`.
        public var pingTimeout: Duration

        public init(pingInterval: Duration = .seconds(30), pingTimeout: Duration = .seconds(10)) {
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
        }
    }

    public enum Action: Sendable, Equatable {
        /// Send OPTIONS number `id` on the flow now.
        case sendPing(id: Int)
        /// Call ``pingDue(now:)`` after this long (replacing an earlier one).
        case schedulePing(after: Duration)
        /// Call ``pingTimedOut(id:now:)`` after this long.
        case schedulePingTimeout(id: Int, after: Duration)
        /// The ping in flight is settled: drop its timeout timer.
        case cancelPingTimeout
        /// The pings stopped: drop both timers.
        case cancelPings
        /// Count one failure of this cause.
        case failure(FailureCause)
        /// A registration round (first REGISTER to its 2xx, challenges included) took this long.
        case observeRegister(Duration)
        /// An OPTIONS was answered after this long.
        case observeOptions(Duration)
        /// Tell the registration its flow failed (``LineRegistration/keepAliveFailed()``).
        case keepAliveFailed
        /// Tell the registration the path works again (``LineRegistration/keepAliveRecovered()``).
        case keepAliveRecovered
    }

    public let settings: Settings
    public private(set) var flowUp = false
    public private(set) var registered = false
    /// The last ping's verdict while the flow is up; false before the first answer.
    public private(set) var answering = false
    /// The server certificate's notAfter (seconds since the epoch) of the last TLS connection.
    public private(set) var certificateNotAfter: Int?
    private var pingID = 0
    private var pingSentAt: Duration?
    private var registeringSince: Duration?
    /// A ping failed and the registration was told; an answered ping undoes it.
    private var keepAliveDown = false

    public init(settings: Settings) { self.settings = settings }

    /// `sip_line_up`.
    public var up: Bool { flowUp && answering }

    /// The flow (re)connected; pinging starts at once. `certificateNotAfter` is the server
    /// certificate's expiry on TLS and WSS.
    public mutating func flowUp(certificateNotAfter notAfter: Int?, now: Duration) -> [Action] {
        flowUp = true
        if let notAfter { certificateNotAfter = notAfter }
        return pingDue(now: now)
    }

    /// The flow died, or a connection attempt failed.
    public mutating func flowDown(_ error: TransportError, now: Duration) -> [Action] {
        let wasUp = flowUp
        flowUp = false
        answering = false
        registered = false
        registeringSince = nil
        pingSentAt = nil
        keepAliveDown = false  // the registration saw the flow die itself
        return (wasUp ? [.cancelPings] : []) + [.failure(FailureCause(error))]
    }

    /// A REGISTER went out (`attempt` 1 starts a round).
    public mutating func registering(attempt: Int, now: Duration) -> [Action] {
        if attempt == 1 || registeringSince == nil { registeringSince = now }
        return []
    }

    /// The registrar's 2xx: the binding is in place.
    public mutating func registered(now: Duration) -> [Action] {
        registered = true
        defer { registeringSince = nil }
        return registeringSince.map { [.observeRegister(now - $0)] } ?? []
    }

    /// The registration failed (it retries by itself with back-off).
    public mutating func registrationFailed(_ failure: RegistrationFailure, now: Duration) -> [Action] {
        registered = false
        registeringSince = nil
        return [.failure(FailureCause(failure))]
    }

    /// The registration stopped on a dead flow (already counted by ``flowDown(_:now:)``).
    public mutating func registrationLostFlow(now: Duration) -> [Action] {
        registered = false
        registeringSince = nil
        return []
    }

    /// The ping timer: one OPTIONS unless one is still out, and the next timer.
    public mutating func pingDue(now: Duration) -> [Action] {
        guard flowUp else { return [] }
        var actions: [Action] = [.schedulePing(after: settings.pingInterval)]
        if pingSentAt == nil {
            pingID += 1
            pingSentAt = now
            actions += [.sendPing(id: pingID), .schedulePingTimeout(id: pingID, after: settings.pingTimeout)]
        }
        return actions
    }

    /// Ping `id` got its final response `status`.
    public mutating func pingAnswered(id: Int, status: Int, now: Duration) -> [Action] {
        guard id == pingID, let sent = pingSentAt else { return [] }
        pingSentAt = nil
        var actions: [Action] = [.cancelPingTimeout, .observeOptions(now - sent)]
        if status >= 500 {
            actions += pingFailed(.serverError)
        } else {
            answering = true
            if keepAliveDown {
                keepAliveDown = false
                actions.append(.keepAliveRecovered)
            }
        }
        return actions
    }

    /// Ping `id` ended without a final response (transport error, or Timer F first).
    public mutating func pingFailed(id: Int, _ end: TransactionEnd, now: Duration) -> [Action] {
        guard id == pingID, pingSentAt != nil else { return [] }
        pingSentAt = nil
        return [.cancelPingTimeout] + pingFailed(FailureCause(end))
    }

    /// Ping `id`'s bound passed.
    public mutating func pingTimedOut(id: Int, now: Duration) -> [Action] {
        guard id == pingID, pingSentAt != nil else { return [] }
        pingSentAt = nil
        return pingFailed(.timeout)
    }

    private mutating func pingFailed(_ cause: FailureCause) -> [Action] {
        answering = false
        var actions: [Action] = [.failure(cause)]
        if !keepAliveDown {
            keepAliveDown = true
            registered = false
            registeringSince = nil
            actions.append(.keepAliveFailed)
        }
        return actions
    }
}
