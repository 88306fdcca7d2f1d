import PushKitEmu
import SIPDialog

/// The vocabulary of ``HeldCallMachine``: what it is told, what it asks for, what it reports.
/// `R` is whatever the shell passes in as a downstream response (the parsed `SIPResponse` in the
/// gateway, an `Int` in the virtual-time tests); the machine never looks inside it.
extension HeldCallMachine {
    /// Timeouts, all on the gateway clock (virtual in tests).
    public struct Settings: Sendable, Hashable {
        /// The wake decision's timers (ack window, register wait, qualify timeout, ring timeout).
        public var decision: EmulatorSettings
        /// RFC 3261 §17 T1/T2/T4: Timers A/B (downstream), G/H/I (upstream), the linger (64·T1).
        public var timers: TransactionTimers
        /// `--failover-uri` is set: a failover forwards the held INVITE there instead of 480.
        public var hasFailoverURI: Bool
        /// `--gone-notice` (docs/wake-gateway.md "Gone notice").
        public var goneNotice: Bool
        /// Wait for the phone's 180/183 before the gone notice's CANCEL; after it, any 1xx will do.
        public var goneCancelFallback: Duration

        public init(
            decision: EmulatorSettings = EmulatorSettings(), timers: TransactionTimers = .rfc3261,
            hasFailoverURI: Bool = false, goneNotice: Bool = false, goneCancelFallback: Duration = .seconds(1)
        ) {
            self.decision = decision
            self.timers = timers
            self.hasFailoverURI = hasFailoverURI
            self.goneNotice = goneNotice
            self.goneCancelFallback = goneCancelFallback
        }
    }

    /// What goes upstream (to Kamailio) through the INVITE server transaction (§17.2.1).
    public enum Upstream: Sendable {
        /// §16.2: 100 Trying at once.
        case trying
        /// Our own final answer: 480 on failover, 487 after CANCEL, 503 when stopping, 408 when
        /// the failover leg timed out. `why` names the path (the `call_ended` event).
        case local(status: Int, why: String)
        /// A response from downstream, relayed (§16.7): Via removed by the shell.
        case relay(R)
    }

    /// Which leg an INVITE goes to downstream (always through Kamailio, marked).
    public enum Leg: Sendable, Hashable {
        /// The woken (or still registered) phone: the original R-URI, §16.6. `direct`: step 1.
        case phone(direct: Bool)
        /// `--failover-uri`.
        case failover(FailoverReason)
        /// The gone notice: the held INVITE to the fresh contact, to be CANCELled.
        case goneNotice
    }

    /// One timer per kind per call; a new start of the same kind replaces the old.
    public enum Timer: Sendable, Hashable {
        /// Decision step 1/4: OPTIONS answer awaited.
        case qualify
        /// Decision step 2: `POST /voip-push-ack` awaited.
        case ackWindow
        /// Decision step 4: the woken phone's fresh REGISTER awaited.
        case registerWait
        /// The decision's ring timeout on a released INVITE.
        case ring
        /// The gone notice's CANCEL is due on any 1xx.
        case goneFallback
        /// A timer of the upstream server transaction (G, H, I, L).
        case upstream(TransactionTimer)
        /// A timer of the downstream client transaction (A, B, D, M).
        case downstream(TransactionTimer)
        /// The call's state is kept 64·T1 after its final answer (Timer H/M), then freed.
        case linger
    }

    /// What the machine asks its shell to do, in order.
    public enum Action: Sendable {
        /// Send (or resend) this upstream.
        case sendUpstream(Upstream)
        /// Send OPTIONS to `sip:user@domain` through Kamailio, on a fresh branch.
        case sendQualify
        /// Send the VoIP push (a fresh push-id); the result comes back as ``pushRefused()``.
        case sendPush
        /// Send the held INVITE downstream on `leg` (first time: a fresh branch) or again (Timer A).
        case sendDownstream(Leg, retransmission: Bool)
        /// ACK this non-2xx final from downstream (§17.1.1.3).
        case ackDownstream(R)
        /// CANCEL the downstream INVITE (§16.10, §9.1); at most once per call.
        case cancelDownstream
        /// The gone notice's INVITE was answered 2xx (it beat the CANCEL): ACK it and BYE
        /// (§12.1.2); a retransmitted 2xx gets the same ACK again.
        case endAnsweredNotice(R, retransmission: Bool)
        /// The push-id can no longer be redeemed (a late ack finds nothing).
        case revokePush
        case startTimer(Timer, Duration)
        case cancelTimer(Timer)
        /// Report what happened (the shell adds the call's fields and times).
        case emit(Report)
        /// Nothing more can happen: free the call and its indexes.
        case free
    }

    /// The machine's half of the gateway's events (`WakeEvent`).
    public enum Report: Sendable, Hashable {
        case held
        case qualify
        case released(direct: Bool)
        case failover(FailoverReason, toURI: Bool)
        case ringing(status: Int)
        case answered
        /// The caller's CANCEL, with the phase it met (`held` ⇔ the caller got 487).
        case cancelled(phase: String)
        case cancelSent
        case ended(status: Int, why: String)
        case goneNotice
        case goneNoticeDone(status: Int)
    }
}
