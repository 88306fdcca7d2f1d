import PushKitEmu
import SIPDialog

/// One call the gateway holds, as a pure machine: one `mutating func` per event, actions out,
/// no IO, no clock (timers are actions; the shell arms them on its clock, tests in virtual time).
///
/// It composes three machines that are already in the tree, so none of their rules is written
/// twice: PushKitEmu's ``WakeDecision`` (when to qualify, push, release, fail over), SIPDialog's
/// ``InviteServerTransaction`` toward Kamailio (100 at once, Timer G/H/I for our own non-2xx,
/// RFC 6026 Timer L after a relayed 2xx, retransmitted INVITEs answered with the last response)
/// and ``InviteClientTransaction`` toward the phone (Timer A/B, the ACK of a non-2xx final, Timer
/// D/M). The gateway is a transaction-stateful proxy (RFC 3261 §16).
///
/// | State | Entered on | Upstream (§17.2.1) | Leaves on |
/// |---|---|---|---|
/// | `held` | INVITE (§16.2) | 100 sent | qualify answered → `released`; push sent → `pushed`; no token → `failedOver`; CANCEL → `cancelled` |
/// | `pushed` | decision step 2 | proceeding | push-ack → `acked`; ack window / refusal → `failedOver`; CANCEL → `cancelled` |
/// | `acked` | push-ack | proceeding | REGISTER + qualify → `released`; register wait → `failedOver`; CANCEL → `cancelled` |
/// | `released(leg)` | INVITE forwarded (§16.6) | 1xx relayed | 2xx → `answered`; non-2xx → `ended`; ring timeout → `failedOver` (CANCEL down, §16.10); CANCEL → CANCEL down (§9.1) |
/// | `answered` | 2xx relayed (§16.7 step 5) | accepted (RFC 6026) | linger |
/// | `failedOver` | 480 sent (or 408 on a failover leg) | completed | ACK (§17.2.1), linger |
/// | `cancelled(notice)` | CANCEL before any forward | 487 (§16.10) | the gone notice's final, linger |
/// | `ended(status)` | a relayed non-2xx, or 503 on drain | completed | ACK, linger |
public struct HeldCallMachine<R: Sendable>: Sendable {
    /// Where the call is; each case carries what only it needs.
    public enum State: Sendable, Hashable {
        /// 100 sent; the decision qualifies the registered contact (step 1) or decides.
        case held
        /// The push went out; its push-ack is awaited within the ack window.
        case pushed
        /// The phone acked; its fresh REGISTER (and the qualify of it) is awaited.
        case acked
        /// The held INVITE went downstream.
        case released(Released)
        /// The phone's 2xx went upstream.
        case answered
        /// The caller got our 480 (or the failover leg's 408).
        case failedOver(FailoverReason)
        /// The caller CANCELled before any INVITE went downstream and got 487.
        case cancelled(notice: Notice?)
        /// A final other than ours went upstream (relayed non-2xx) or 503 on drain.
        case ended(status: Int)

        /// The phase names the gateway's events use (`held` ⇔ a CANCEL is answered 487).
        public var phase: String {
            switch self {
            case .held, .pushed, .acked: "held"
            case .released: "released"
            case .answered, .failedOver, .cancelled, .ended: "finished"
            }
        }
    }

    /// A released INVITE's leg.
    public struct Released: Sendable, Hashable {
        public var leg: Leg
        public var rang = false
        public var cancelSent = false
    }

    /// The gone notice's leg (the caller already has its 487; nothing of it goes upstream).
    public struct Notice: Sendable, Hashable {
        /// Any 1xx seen (Kamailio's own 100 counts).
        public var provisional = false
        /// No alerting answer within the fallback: CANCEL on any 1xx.
        public var fallbackDue = false
        public var cancelSent = false
        /// The phone's final answer arrived (487, or a 2xx that beat the CANCEL).
        public var done = false
    }

    public internal(set) var state: State = .held
    public let settings: Settings
    /// The wake rules (PushKitEmu), stepped here so that no await sits between hearing an event
    /// and acting on it.
    public internal(set) var decision: WakeDecision
    /// Toward Kamailio, the caller's side.
    public internal(set) var upstream: InviteServerTransaction<Upstream>
    /// Toward the phone (or the failover URI, or the gone notice), once released.
    public internal(set) var downstream: InviteClientTransaction<R>?
    /// Where ``downstream`` goes.
    public internal(set) var leg: Leg?
    /// The caller's CANCEL arrived (a second one changes nothing).
    public internal(set) var callerLeft = false
    var hasToken = false
    var lingers = 0

    public init(settings: Settings) {
        self.settings = settings
        decision = WakeDecision(goneNotice: settings.goneNotice)
        upstream = InviteServerTransaction(reliable: false, timers: settings.timers)
    }

    // MARK: Events from upstream

    /// The INVITE arrives: 100 at once (§16.2, §17.2.1), then the decision's first step.
    public mutating func start(registrationLive: Bool, hasToken: Bool) -> [Action] {
        received() + decide(registrationLive: registrationLive, hasToken: hasToken)
    }

    /// The INVITE arrives: 100 at once (§16.2, §17.2.1). The decision starts with
    /// ``decide(registrationLive:hasToken:)`` once the line's registrations are read (from a
    /// shared store that is an await, and the caller may CANCEL meanwhile).
    public mutating func received() -> [Action] {
        serverActions(upstream.send(status: 100, .trying))
    }

    /// The decision's first step: qualify a live contact (step 1), push (step 2) or fail over.
    /// Nothing when the caller has already left (its 487 is sent) or the call was drained.
    public mutating func decide(registrationLive: Bool, hasToken: Bool) -> [Action] {
        guard case .held = state, !callerLeft, decision.state == .idle else { return [] }
        self.hasToken = hasToken
        return [.emit(.held)] + perform(decision.start(registrationLive: registrationLive, hasToken: hasToken))
    }

    /// The INVITE again (same branch): the last response again (§17.2.1), nothing else.
    public mutating func inviteRetransmitted() -> [Action] {
        serverActions(upstream.receiveRequestRetransmission())
    }

    /// The caller's CANCEL (§16.10; the shell has answered it 200). Before any INVITE went down:
    /// 487. After: CANCEL downstream, the phone's 487 comes back and is relayed. After a final:
    /// nothing. One step, so the ack window's failover and the CANCEL can never both answer.
    public mutating func cancel() -> [Action] {
        guard !callerLeft else { return [] }
        callerLeft = true
        guard upstream.state == .proceeding else { return [.emit(.cancelled(phase: "finished"))] }
        let action = decision.isOver ? WakeAction.none : decision.callerLeft()
        switch state {
        case .released:
            var out: [Action] = [.emit(.cancelled(phase: "released"))]
            out += perform(action)
            out += cancelDownstream()  // also a failover-URI leg the decision no longer owns
            return out
        case .held, .pushed, .acked:
            state = .cancelled(notice: nil)
            var out: [Action] = [.emit(.cancelled(phase: "held"))]
            out += finish(487, why: "cancelled")
            out += perform(action)
            return out
        case .answered, .failedOver, .cancelled, .ended:
            return [.emit(.cancelled(phase: "finished"))]
        }
    }

    /// The ACK for our non-2xx final (§17.2.1: Timer G and H stop, Timer I absorbs the rest).
    public mutating func ack() -> [Action] { serverActions(upstream.receiveACK()) }

    /// Stopping: a call still held is answered 503 (Kamailio's dispatcher tries the next gateway).
    public mutating func drain() -> [Action] {
        switch state {
        case .held, .pushed, .acked:
            state = .ended(status: 503)
            return cancelDecisionTimers() + [.revokePush] + finish(503, why: "gateway_stopping")
        case .released, .answered, .failedOver, .cancelled, .ended:
            return []
        }
    }

    // MARK: Events from the decision's world

    /// OPTIONS answered 2xx.
    public mutating func qualifyAnswered() -> [Action] { perform(decision.qualifyAnswered()) }
    /// OPTIONS answered with a final non-2xx: a failed qualify now, not at the timer.
    public mutating func qualifyFailed() -> [Action] {
        [.cancelTimer(.qualify)] + perform(decision.qualifyFailed(hasToken: hasToken))
    }
    /// The provider refused the push (or the rate limit / back-off did).
    public mutating func pushRefused() -> [Action] { perform(decision.pushRejected()) }
    /// `POST /voip-push-ack` redeemed this call's push-id. `registeredSincePush`: the REGISTER
    /// overtook the ack (different paths) and is fed now.
    public mutating func pushAcked(registeredSincePush: Bool) -> [Action] {
        var out = perform(decision.ackReceived())
        if registeredSincePush { out += registerSeen() }
        return out
    }
    /// A fresh REGISTER from the line's phone was replicated here.
    public mutating func registerSeen() -> [Action] { perform(decision.registerReceived()) }

    /// The ack answer's `call_active`: the phone still has a call to take.
    public var isActive: Bool {
        if callerLeft { return false }
        switch state {
        case .held, .pushed, .acked, .released, .answered: break
        case .failedOver, .cancelled, .ended: return false
        }
        switch decision.state {
        case .failedOver, .cancelled, .cancelledNoticeOwed: return false
        default: return true
        }
    }

    /// Nothing more can happen: final upstream, no gone notice owed or in flight.
    public var isReapable: Bool {
        guard upstream.state != .proceeding else { return false }
        if decision.state == .cancelledNoticeOwed { return false }
        if case .cancelled(let notice?) = state, !notice.done { return false }
        return true
    }
}
