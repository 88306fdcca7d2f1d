/// A timer the client policy starts; the emulator fires it back through ``PushClientPolicy/timerFired(_:_:)``.
public enum PolicyTimer: Sendable, Hashable {
    /// R5: the placeholder for CallKit call `uuid` waits this long for its INVITE.
    case placeholder(uuid: Int32)
    /// The naive policy's PushKit-session merge (the ~10 s answer delay).
    case merge(uuid: Int32)
    /// A timer a client process named itself (client protocol `start_timer`); the bridge keeps
    /// the name ↔ id table.
    case named(Int32)
}

/// One thing the client asked iOS, CallKit, or the network to do, in the order it asked.
///
/// The order matters: R1 is checked on it (report before any networking but the ack).
public enum ClientOp: Sendable, Hashable {
    /// `POST /voip-push-ack {push_id}`: the one network call allowed before reporting.
    case ackPush(pushID: Int32)
    /// `CXProvider.reportNewIncomingCall`: for a push (`pushID`) or an INVITE (`invite`), -1 = none.
    case reportNewIncomingCall(uuid: Int32, pushID: Int32, invite: Int32)
    /// `CXProvider.reportCall(with:updated:)` (caller name known after the INVITE).
    case reportCallUpdated(uuid: Int32)
    /// The `CXCallUpdate` of CallKit call `uuid` (in its report or an update) shows a caller's
    /// name or number rather than the app's own name. Only a sealed push that opened may do this
    /// (R5 `sealed_caller_shown`); the emulator never sees the name itself.
    case showCaller(uuid: Int32)
    /// `CXProvider.reportCall(with:endedAt:reason:)`.
    case reportCallEnded(uuid: Int32, reason: EndReason)
    /// `CXAnswerCallAction.fulfill()`.
    case fulfillAnswer(uuid: Int32)
    /// `CXAnswerCallAction.fail()`.
    case failAnswer(uuid: Int32)
    /// The SIP stack binds the INVITE (server call) to an existing CallKit call: the R5 claim.
    case claimInvite(call: Int32, uuid: Int32)
    /// Send 200 OK for the INVITE of server call `call`.
    case sendOK(call: Int32)
    /// Send 603 Decline for the INVITE of server call `call`.
    case sendDecline(call: Int32)
    /// Send REGISTER, reading credentials stored with `protection` (networking).
    case register(protection: KeychainProtection)
    /// `POST /api/v1/users/voip-push-token` with the current token and environment (networking).
    case uploadToken
    /// `DELETE …/voip-push-token` (networking).
    case deleteToken
    /// `DELETE /api/v1/users/voip-push-grant` to every gateway the phone joined (docs/adr/0153):
    /// iOS took the VoIP token back, so each gateway must drop the phone's grant and call key
    /// (networking; rule GRANT).
    case stopGrants
    /// `POST /api/v1/users/voip-push-grant` to every gateway the phone joined: a new call grant
    /// signed by the device key, asking `lifetimeSeconds` (the phone asks 14 days, the gateway
    /// refuses more than 15). Owed at a launch once less than 7 days remain; never within 15
    /// minutes of the last grant (networking; rule GRANT, ``CallGrant``).
    case renewGrant(lifetimeSeconds: Int32)
    /// Any other network request (e.g. fetching call details before reporting — the field bug).
    case fetch
    /// Start a timer.
    case startTimer(PolicyTimer, afterMs: Int64)

    /// Whether this op is networking that R1 forbids before the report (the ack is exempt).
    public var isNetworking: Bool {
        switch self {
        case .sendOK, .sendDecline, .register, .uploadToken, .deleteToken, .stopGrants, .renewGrant, .fetch: true
        case .ackPush, .reportNewIncomingCall, .reportCallUpdated, .showCaller, .reportCallEnded, .fulfillAnswer,
            .failAnswer, .claimInvite, .startTimer:
            false
        }
    }
}
