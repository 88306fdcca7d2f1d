import SIPCore

/// One call's INVITE signalling (RFC 3261 §13–§15, RFC 4028 session timers) as a pure state
/// machine, for the caller (UAC) and the callee (UAS) side. It owns the call's ``Dialog``s,
/// builds every request, response and ACK, and returns actions for its shell (the CallSession
/// actor) to execute: one client transaction per ``Action/sendRequest(_:)`` (INVITE or
/// non-INVITE by method), a response through the matching server transaction per
/// ``Action/sendResponse(_:answering:)``, an ACK for a 2xx straight to the transport per
/// ``Action/sendACK(_:)``. The shell feeds back every response its client transactions deliver
/// (2xx retransmissions included), every request that matches the call's Call-ID (ACK for a 2xx,
/// CANCEL, BYE, re-INVITE, UPDATE, INFO, OPTIONS), transaction failures and timers.
///
/// Files: this one (states, inputs, commands), `+Outgoing` (UAC: responses to the INVITE,
/// forks, CANCEL), `+Incoming` (UAS: ring/answer/reject, 2xx until ACK, CANCEL),
/// `+InDialog` (BYE, re-INVITE, glare, UPDATE, INFO, OPTIONS), `+SessionTimer` (RFC 4028),
/// `+Building` (message construction).
public struct InviteUsage: Sendable {
    public enum State: Sendable, Hashable {
        /// Outgoing call not started yet (``start()`` sends the INVITE).
        case idle
        /// §13.2.1: INVITE sent, no provisional yet; a hang-up waits for one to CANCEL (§9.1).
        case calling
        /// §13.2.2.1: a provisional arrived (early dialogs per To tag may exist); CANCEL allowed.
        case proceeding
        /// §9.1: CANCEL sent; waiting for the 487 (a racing 2xx is ACKed, then BYEd).
        case cancelling
        /// §13.3.1: incoming INVITE, no final response sent yet.
        case incoming
        /// §13.3.1.4: our 2xx is retransmitted (T1 doubling to T2) until the ACK, at most 64·T1.
        case waitingForACK
        /// §12 / §13.3.1.4: the dialog is confirmed; the session is up.
        case confirmed
        /// §15.1.1: BYE sent; waiting for its final response (or transaction failure).
        case terminating
        /// Done: nothing more will be sent.
        case terminated
    }

    /// The timers the usage asks its shell to run (the transaction timers are the transactions').
    public enum Timer: String, Sendable, Hashable, CaseIterable {
        /// Outgoing call not answered within ``InviteSettings/noAnswerTimeout``: CANCEL.
        case noAnswer
        /// §9.1: no final response 64·T1 after our CANCEL: give up on the INVITE.
        case cancelTimeout
        /// §13.3.1.4: retransmit our 2xx (T1, 2·T1, … capped at T2).
        case retransmit2xx
        /// §13.3.1.4: no ACK 64·T1 after our 2xx: BYE.
        case ackTimeout
        /// §14.1: retry the re-INVITE that met a 491.
        case glareRetry
        /// RFC 4028 §7.4 / §9: send the session refresh (half the interval).
        case sessionRefresh
        /// RFC 4028 §10: no refresh came: BYE.
        case sessionExpiry
    }

    public enum Action: Sendable {
        /// Start a client transaction for this request (INVITE client transaction for INVITE,
        /// non-INVITE otherwise; CANCEL and BYE included). Reliability is the shell's concern.
        case sendRequest(SIPRequest)
        /// Send this response through the server transaction of `answering` (the request as it
        /// was passed in; its key is `TransactionKey.server(request:)`); 2xx retransmissions to
        /// an INVITE go the same way (RFC 6026 §8.7).
        case sendResponse(SIPResponse, answering: SIPRequest)
        /// Send this ACK for a 2xx straight to the transport (§13.2.2.4: no transaction).
        case sendACK(SIPRequest)
        case startTimer(Timer, Duration)
        case cancelTimer(Timer)
        case event(InviteEvent)
    }

    public internal(set) var state: State
    public let role: Dialog.Role
    public let settings: InviteSettings
    public let callID: String
    /// The confirmed dialog; for an incoming call, the dialog being set up.
    public internal(set) var dialog: Dialog?
    /// UAC: early dialogs by remote (To) tag, one per fork that sent a tagged provisional (§12.1.2).
    public internal(set) var earlyDialogs: [String: Dialog] = [:]
    /// UAS: the offer in the incoming INVITE (nil: the caller expects our offer in the 2xx).
    public let remoteInitialOffer: SessionBody?

    let ids: any IdentifierSource
    var binding: LocalBinding
    var digest: DigestClientState?
    /// From (UAC) / To (UAS) with our tag.
    let localAddress: SIPNameAddress
    // UAC
    var invite: SIPRequest?
    let target: SIPURI
    let remoteAddress: SIPNameAddress
    let initialRoutes: [SIPNameAddress]
    var inviteSequence: UInt32
    var hangUpBeforeProvisional: InviteEndReason?
    var cancelOutcome: InviteEndReason = .cancelled
    var acks: [AckKey: SIPRequest] = [:]
    var requestedSessionExpires: UInt32?
    var currentMinSE: UInt32
    // UAS
    var incomingInvite: SIPRequest?
    var pending2xx: Pending2xx?
    var byeAfterACK = false
    // Both
    var localBody: SessionBody?
    var outgoingOffer: OutgoingOffer?
    var glareOffer: OutgoingOffer?
    var incomingOffer: SIPRequest?
    var sessionTimer: SessionTimer?
    var peerAllowsUpdate = false
    var endEmitted = false

    /// An ACK we sent for a 2xx, kept to answer that 2xx's retransmissions (§13.2.2.4).
    struct AckKey: Hashable, Sendable {
        var remoteTag: String
        var sequence: UInt32
    }

    /// Our 2xx to an INVITE (initial or re-INVITE), retransmitted until its ACK (§13.3.1.4).
    struct Pending2xx: Sendable {
        var response: SIPResponse
        var request: SIPRequest
        var sequence: UInt32
        var interval: Duration
    }

    /// Our re-INVITE or UPDATE in flight (§14.1), or waiting for its glare retry.
    struct OutgoingOffer: Sendable {
        var method: SIPMethod
        var body: SessionBody?
        var isRefresh: Bool
        var sequence: UInt32 = 0
    }

    /// An outgoing call (UAC) to `target`, with the media layer's SDP `offer` in the INVITE
    /// (§13.2.1; offerless INVITEs, whose answer would go in the ACK, are not supported).
    ///
    /// - Parameters:
    ///   - target: the Request-URI, whom we call.
    ///   - local: our address of record; a fresh From tag is added.
    ///   - remote: the To (default: `target` without display name).
    ///   - routeSet: a pre-loaded route set (outbound proxy with `lr`, RFC 3261 §8.1.2).
    ///   - offer: the SDP offer the INVITE carries.
    ///   - binding: our transport address, for Via and Contact.
    ///   - credentials: for 401/407 on the INVITE and in-dialog requests (§22.2).
    ///   - settings: timers (no-answer, session refresh) and the headers the usage adds.
    ///   - ids: tags, branches and the CSeq start.
    public init(
        calling target: SIPURI, from local: SIPNameAddress, to remote: SIPNameAddress? = nil,
        offer: SessionBody, binding: LocalBinding, routeSet: [SIPNameAddress] = [],
        credentials: DigestCredentials? = nil, settings: InviteSettings = InviteSettings(),
        ids: any IdentifierSource
    ) {
        self.state = .idle
        self.role = .uac
        self.settings = settings
        self.ids = ids
        self.binding = binding
        self.digest = credentials.map { DigestClientState(credentials: $0) }
        self.callID = ids.callID()
        var from = local
        from.tag = ids.tag()
        self.localAddress = from
        self.target = target
        self.remoteAddress = remote ?? SIPNameAddress(uri: target)
        self.initialRoutes = routeSet
        self.inviteSequence = ids.initialCSeq()
        self.localBody = offer
        self.remoteInitialOffer = nil
        self.requestedSessionExpires = settings.sessionTimers ? settings.requestedSessionExpires : nil
        self.currentMinSE = settings.minSessionExpires
    }

    /// An incoming call (UAS) for `invite`, which must carry a From tag and a Contact (§12.1.1).
    /// Call ``start()`` next, then ``ring(earlyMedia:)``, ``answer(_:)`` or ``reject(status:reason:)``.
    public init(
        incoming invite: SIPRequest, binding: LocalBinding, credentials: DigestCredentials? = nil,
        settings: InviteSettings = InviteSettings(), ids: any IdentifierSource
    ) throws(DialogError) {
        let dialog = try Dialog(uas: invite, localTag: ids.tag())
        self.state = .incoming
        self.role = .uas
        self.settings = settings
        self.ids = ids
        self.binding = binding
        self.digest = credentials.map { DigestClientState(credentials: $0) }
        self.callID = dialog.id.callID
        self.dialog = dialog
        self.localAddress = dialog.localAddress
        self.target = invite.uri
        self.remoteAddress = dialog.remoteAddress
        self.initialRoutes = []
        self.inviteSequence = dialog.remoteSequence ?? 0
        self.incomingInvite = invite
        self.remoteInitialOffer = SessionBody(body: invite.bodyBytes, headers: invite.headers)
        self.peerAllowsUpdate = invite.headers.allow.contains(.update)
        self.currentMinSE = settings.minSessionExpires
    }

    /// The peer: the callee's To (UAC) or the caller's From (UAS).
    public var remoteIdentity: SIPNameAddress { dialog?.remoteAddress ?? remoteAddress }

    /// Nothing more will happen; the shell may drop the usage once its transactions finish.
    public var isTerminated: Bool { state == .terminated }

    /// Whether `request` belongs to this call (same Call-ID); the usage checks tags itself.
    public func owns(_ request: SIPRequest) -> Bool { request.headers.callID == callID }

    // MARK: - Inputs

    /// UAC: sends the INVITE and starts the no-answer timer (§13.2.1). UAS: checks the INVITE
    /// (420 for a Require we lack, §8.2.2.3; 422 for a Session-Expires below our Min-SE,
    /// RFC 4028 §9) and otherwise returns nothing: the call waits for ring/answer/reject.
    public mutating func start() -> [Action] {
        switch state {
        case .idle:
            state = .calling
            var actions = sendInvite()
            if let limit = settings.noAnswerTimeout { actions.append(.startTimer(.noAnswer, limit)) }
            return actions
        case .incoming:
            guard let invite = incomingInvite else { return [] }
            let unsupported = invite.headers.require.filter { !(settings.sessionTimers && $0.lowercased() == "timer") }
            if !unsupported.isEmpty {
                // §8.2.2.3: 420 Bad Extension naming what we do not support (e.g. 100rel).
                state = .terminated
                let response = makeResponse(
                    to: invite, status: 420, reason: "Bad Extension",
                    extra: [(.unsupported, unsupported.joined(separator: ", "))])
                return [.sendResponse(response, answering: invite)] + emitEnd(.rejected(status: 420))
            }
            guard let tooSmall = sessionIntervalTooSmall(invite) else { return [] }
            state = .terminated
            return [.sendResponse(tooSmall, answering: invite)] + emitEnd(.rejected(status: 422))
        case .calling, .proceeding, .cancelling, .waitingForACK, .confirmed, .terminating, .terminated:
            return []
        }
    }

    /// A response delivered by one of our client transactions, or a 2xx retransmission that
    /// arrived after the INVITE transaction ended (§13.2.2.4).
    public mutating func receive(_ response: SIPResponse) -> [Action] {
        guard response.headers.callID == callID, let cseq = try? response.headers.cseq() else { return [] }
        switch cseq.method {
        case .invite where role == .uac && cseq.sequence == inviteSequence:
            return inviteResponse(response)
        case .invite, .update:
            if let offer = outgoingOffer, offer.sequence == cseq.sequence, offer.method == cseq.method {
                return offerResponse(response, offer: offer)
            }
            return cseq.method == .invite ? strayInviteResponse(response, sequence: cseq.sequence) : []
        case .bye:
            return byeResponse(response)
        case .cancel, .info, .options:
            return inDialogFailure(response)
        default:
            return []
        }
    }

    /// A request for this call (see ``owns(_:)``), after its server transaction was created.
    public mutating func receive(_ request: SIPRequest) -> [Action] {
        guard owns(request) else { return [] }
        switch request.method {
        case .cancel:
            return cancelReceived(request)
        case .ack:
            return ackReceived(request)
        default:
            return inDialogRequest(request)
        }
    }

    /// A client transaction we asked for ended without a final response (Timer B/F or a
    /// transport error, §8.1.3.1): `cseq` is its request's CSeq.
    public mutating func transactionFailed(_ cseq: SIPCSeq, _ end: TransactionEnd) -> [Action] {
        guard end != .completed else { return [] }
        let reason: InviteEndReason = end == .timeout ? .timeout : .transportError
        switch (cseq.method, state) {
        case (.invite, .calling), (.invite, .proceeding), (.invite, .cancelling):
            guard cseq.sequence == inviteSequence else { return [] }
            let outcome = state == .cancelling || hangUpBeforeProvisional != nil ? cancelOutcome : reason
            state = .terminated
            earlyDialogs = [:]
            return cancelAllTimers() + emitEnd(outcome)
        case (.bye, .terminating):
            state = .terminated
            return cancelAllTimers()
        case (.invite, .confirmed), (.update, .confirmed):
            // §14.1 / §12.2.1.2: a timed-out re-INVITE or UPDATE ends the dialog.
            guard let offer = outgoingOffer, offer.sequence == cseq.sequence else { return [] }
            outgoingOffer = nil
            return sendBye(reason: reason)
        default:
            return []
        }
    }

    /// A timer this usage started has fired.
    public mutating func timerFired(_ timer: Timer) -> [Action] {
        switch timer {
        case .noAnswer:
            return cancelOutgoing(reason: .noAnswer)
        case .cancelTimeout:
            guard state == .cancelling else { return [] }
            state = .terminated
            return cancelAllTimers() + emitEnd(cancelOutcome)
        case .retransmit2xx:
            return retransmit2xx()
        case .ackTimeout:
            return ackTimedOut()
        case .glareRetry:
            return retryAfterGlare()
        case .sessionRefresh:
            return sendSessionRefresh()
        case .sessionExpiry:
            guard state == .confirmed || state == .waitingForACK else { return [] }
            return sendBye(reason: .sessionExpired)
        }
    }

    // MARK: - Commands

    /// Ends the call the right way for its state: CANCEL while ringing (or as soon as a
    /// provisional arrives, §9.1), BYE once confirmed (after the ACK for our 2xx, §15), 603 for an
    /// unanswered incoming call. Idempotent.
    public mutating func hangUp() -> [Action] {
        switch state {
        case .idle:
            state = .terminated
            return emitEnd(.localHangUp)
        case .calling, .proceeding:
            return cancelOutgoing(reason: .cancelled)
        case .incoming:
            return (try? finalFailure(status: 603, reason: nil, end: .localHangUp)) ?? []
        case .waitingForACK:
            // §15: the callee must not send BYE before the ACK (or the ACK timeout).
            byeAfterACK = true
            return []
        case .confirmed:
            return sendBye(reason: .localHangUp)
        case .cancelling, .terminating, .terminated:
            return []
        }
    }

    /// The flow changed (transport reconnect, RFC 5626 §4.4): later requests use the new Via
    /// sent-by and Contact. The peer learns the new Contact with the next target refresh
    /// (re-INVITE or UPDATE, §12.2); sending one is the caller's choice.
    public mutating func updateBinding(_ binding: LocalBinding) {
        self.binding = binding
    }

    /// Sends an INFO in the confirmed dialog (RFC 6086), e.g. `application/dtmf-relay`.
    public mutating func sendInfo(_ body: SessionBody) throws(InviteError) -> [Action] {
        guard state == .confirmed || state == .waitingForACK else {
            throw InviteError(.invalidState, "INFO needs a confirmed dialog (\(state))")
        }
        return [.sendRequest(makeInDialog(.info, body: body))]
    }

    // MARK: - Shared helpers

    /// Emits `ended(reason)` once.
    mutating func emitEnd(_ reason: InviteEndReason) -> [Action] {
        guard !endEmitted else { return [] }
        endEmitted = true
        return [.event(.ended(reason))]
    }

    func cancelAllTimers() -> [Action] { Timer.allCases.map { .cancelTimer($0) } }
}
