/// The server's wake decision v2 for one incoming call (docs/push-wake-rules.md "The server").
///
/// An action-returning state machine: one mutating func per event, no IO, no clock. The shell
/// owns timers and transport, so the same machine can run in virtual time or, later, in front of
/// a real SIP user agent (live mode).
public struct WakeDecision: Sendable, Hashable {
    /// The machine's states.
    public enum State: Sendable, Hashable {
        /// Call not started.
        case idle
        /// Step 1: registration looks live; OPTIONS sent, waiting for 200 or timeout.
        case qualifyingDirect
        /// Step 1: INVITE sent straight to the live contact.
        case ringingDirect
        /// Step 2: push sent, waiting for `POST /voip-push-ack` within the ack window.
        case awaitingAck
        /// Step 4: acked, waiting for the fresh REGISTER.
        case awaitingRegister
        /// Step 4: fresh REGISTER in, OPTIONS sent to the new contact.
        case qualifyingFresh
        /// Step 4: held INVITE sent to the new contact.
        case inviteSent
        /// 200 OK received: connected.
        case answered
        /// Step 3 (or a dead end): moved to the next target.
        case failedOver(FailoverReason)
        /// The caller hung up first.
        case cancelled
        /// The caller hung up after the ack, before a fresh contact: the gone notice goes out with
        /// the next REGISTER (option `gone_notice`).
        case cancelledNoticeOwed
    }

    /// The current state.
    public private(set) var state: State = .idle
    /// Whether a push was sent for this call (and so whether an ack is meaningful).
    public private(set) var pushed = false
    /// Whether the server tells a woken phone that the caller left before the INVITE (live: the
    /// held INVITE to the fresh contact, CANCELled at once). Not in v2: our extension, off by
    /// default, closing the gap where the placeholder rings until its timeout.
    public let goneNotice: Bool

    public init(goneNotice: Bool = false) { self.goneNotice = goneNotice }

    /// Whether the call is over for the server (caller left, failed over, or answered elsewhere).
    public var isOver: Bool {
        switch state {
        case .failedOver, .cancelled, .cancelledNoticeOwed: true
        case .idle, .qualifyingDirect, .ringingDirect, .awaitingAck, .awaitingRegister, .qualifyingFresh,
            .inviteSent, .answered:
            false
        }
    }

    /// The call arrives: step 1 if the registration looks live, else step 2, else failover.
    public mutating func start(registrationLive: Bool, hasToken: Bool) -> WakeAction {
        guard case .idle = state else { preconditionFailure("WakeDecision.start in \(state)") }
        if registrationLive {
            state = .qualifyingDirect
            return .qualify
        }
        return pushOrFail(hasToken: hasToken)
    }

    private mutating func pushOrFail(hasToken: Bool) -> WakeAction {
        guard hasToken else {
            state = .failedOver(.noToken)
            return .failover(.noToken)
        }
        state = .awaitingAck
        pushed = true
        return .sendPush
    }

    /// The contact answered OPTIONS.
    public mutating func qualifyAnswered() -> WakeAction {
        switch state {
        case .qualifyingDirect:
            state = .ringingDirect
            return .sendInvite(direct: true)
        case .qualifyingFresh:
            state = .inviteSent
            return .sendInvite(direct: false)
        case .idle, .ringingDirect, .awaitingAck, .awaitingRegister, .inviteSent, .answered, .failedOver,
            .cancelled, .cancelledNoticeOwed:
            return .none
        }
    }

    /// The qualify timer fired. Direct: fall back to push. Fresh contact: keep waiting for another
    /// REGISTER until the register wait ends.
    public mutating func qualifyTimedOut(hasToken: Bool) -> WakeAction {
        switch state {
        case .qualifyingDirect: return pushOrFail(hasToken: hasToken)
        case .qualifyingFresh:
            state = .awaitingRegister
            return .none
        case .idle, .ringingDirect, .awaitingAck, .awaitingRegister, .inviteSent, .answered, .failedOver,
            .cancelled, .cancelledNoticeOwed:
            return .none
        }
    }

    /// The qualify got a final non-2xx answer (the registrar's 404/480, the proxy's 408/500 for a
    /// contact with no flow): the same transition as ``qualifyTimedOut(hasToken:)``, taken as soon
    /// as the answer is in rather than when the qualify timer fires.
    public mutating func qualifyFailed(hasToken: Bool) -> WakeAction {
        qualifyTimedOut(hasToken: hasToken)
    }

    /// APNs refused the push.
    public mutating func pushRejected() -> WakeAction {
        guard case .awaitingAck = state else { return .none }
        state = .failedOver(.apnsRejected)
        return .failover(.apnsRejected)
    }

    /// `POST /voip-push-ack {push_id}` arrived.
    public mutating func ackReceived() -> WakeAction {
        guard case .awaitingAck = state else { return .none }
        state = .awaitingRegister
        return .awaitRegister
    }

    /// The ack window ended.
    public mutating func ackWindowExpired() -> WakeAction {
        guard case .awaitingAck = state else { return .none }
        state = .failedOver(.noAck)
        return .failover(.noAck)
    }

    /// A fresh REGISTER from the phone arrived.
    public mutating func registerReceived() -> WakeAction {
        switch state {
        case .awaitingRegister:
            state = .qualifyingFresh
            return .qualify
        case .cancelledNoticeOwed:
            state = .cancelled
            return .sendGoneNotice
        case .idle, .qualifyingDirect, .ringingDirect, .awaitingAck, .qualifyingFresh, .inviteSent, .answered,
            .failedOver, .cancelled:
            return .none
        }
    }

    /// The register wait ended.
    public mutating func registerWaitExpired() -> WakeAction {
        switch state {
        case .awaitingRegister, .qualifyingFresh:
            state = .failedOver(.noRegister)
            return .failover(.noRegister)
        case .cancelledNoticeOwed:
            state = .cancelled
            return .none
        case .idle, .qualifyingDirect, .ringingDirect, .awaitingAck, .inviteSent, .answered, .failedOver,
            .cancelled:
            return .none
        }
    }

    /// The phone declined (603): the user does not want this call here.
    public mutating func declined() -> WakeAction {
        switch state {
        case .ringingDirect, .inviteSent:
            state = .failedOver(.declined)
            return .failover(.declined)
        case .idle, .qualifyingDirect, .awaitingAck, .awaitingRegister, .qualifyingFresh, .answered, .failedOver,
            .cancelled, .cancelledNoticeOwed:
            return .none
        }
    }

    /// The INVITE got no final answer in time (Timer B / the proxy's ring timeout).
    public mutating func inviteTimedOut() -> WakeAction {
        switch state {
        case .ringingDirect, .inviteSent:
            state = .failedOver(.inviteTimeout)
            return .cancelAndFailover(.inviteTimeout)
        case .idle, .qualifyingDirect, .awaitingAck, .awaitingRegister, .qualifyingFresh, .answered,
            .failedOver, .cancelled, .cancelledNoticeOwed:
            return .none
        }
    }

    /// The phone answered (200 OK).
    public mutating func answered() -> WakeAction {
        switch state {
        case .ringingDirect, .inviteSent:
            state = .answered
            return .none
        case .idle, .qualifyingDirect, .awaitingAck, .awaitingRegister, .qualifyingFresh, .answered,
            .failedOver, .cancelled, .cancelledNoticeOwed:
            return .none
        }
    }

    /// The caller hung up.
    public mutating func callerLeft() -> WakeAction {
        switch state {
        case .ringingDirect, .inviteSent:
            state = .cancelled
            return .sendCancel
        case .awaitingRegister where goneNotice:
            state = .cancelledNoticeOwed
            return .stop
        case .qualifyingFresh where goneNotice:
            state = .cancelled
            return .sendGoneNotice
        case .idle, .qualifyingDirect, .awaitingAck, .awaitingRegister, .qualifyingFresh:
            state = .cancelled
            return .stop
        case .answered, .failedOver, .cancelled, .cancelledNoticeOwed:
            return .none
        }
    }
}
