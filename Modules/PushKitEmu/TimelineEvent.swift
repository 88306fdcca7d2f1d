/// One line of the timeline: what the emulator saw happen. Rendered as JSON Lines by
/// `TimelineEvent.jsonLine(t:)`; the `event` names are a documented contract
/// (docs/man/astra-pushsim.md). Plain values: recording one costs no allocation.
public enum TimelineEvent: Sendable, Hashable {
    /// A caller dialled; server call `call` starts.
    case callStart(call: Int32)
    /// Server → contact OPTIONS (step 1 or step 4).
    case qualifySent(call: Int32)
    /// The contact answered OPTIONS.
    case qualifyOK(call: Int32)
    /// OPTIONS went unanswered.
    case qualifyTimeout(call: Int32)
    /// Server sent the INVITE (direct ring, or the held INVITE after wake).
    case inviteSent(call: Int32, direct: Bool)
    /// The INVITE reached the app's SIP stack.
    case inviteReceived(call: Int32)
    /// A SIP message for the app was lost (app not running or device offline).
    case sipLost(call: Int32)
    /// Server sent a VoIP push (`expiration` in s; token redacted).
    case pushSent(call: Int32, push: Int32, content: PushContent, expiration: Int, token: PushToken)
    /// An ordinary alert notification (the R3-compliant path for messages).
    case alertSent
    /// APNs refused a push.
    case apnsRejected(push: Int32, reason: APNsRejection)
    /// APNs kept the push for an offline device (non-zero expiration, or — in the field model —
    /// an expired one kept anyway).
    case apnsStored(push: Int32)
    /// APNs dropped the push for an offline device (`apns-expiration: 0`, or expired).
    case apnsDropped(push: Int32)
    /// APNs accepted the push for an online device and never delivered it (field loss).
    case apnsLost(push: Int32)
    /// APNs delivered the push to the device; `ageMs` since the server sent it.
    case apnsDelivered(push: Int32, ageMs: Int64)
    /// iOS did not deliver the push: the app is in R2 blackout.
    case pushSuppressed(push: Int32)
    /// iOS launched or resumed the app for a push.
    case appLaunch(from: AppState, push: Int32)
    /// The PushKit handler started.
    case handlerStart(push: Int32)
    /// The phone judged a sealed push as its handler started (``CallKeychain/judge(_:now:sealing:)``).
    case sealCheck(push: Int32, verdict: SealVerdict)
    /// The app asked every gateway it joined to drop its grant and call key.
    case grantsStopped
    /// The app sent its gateways a new call grant; the grant now held expires at `expiresMs`
    /// (unchanged when the gateway refused it as too long).
    case grantRenewed(lifetimeSeconds: Int32, expiresMs: Int64)
    /// Joined gateway `gateway`'s call grant expired: that gateway no longer pushes to the phone.
    case grantExpired(gateway: Int32)
    /// The app showed a caller's name or number on CallKit call `uuid` (never the name itself).
    case callerShown(uuid: Int32)
    /// The PushKit handler returned; whether it reported a call.
    case handlerReturn(push: Int32, reported: Bool)
    /// The app POSTed the push-ack.
    case ackSent(push: Int32)
    /// The server got the push-ack.
    case ackReceived(call: Int32, push: Int32)
    /// No push-ack in the ack window.
    case ackWindowExpired(call: Int32)
    /// The app got the ack response: whether the call is still up.
    case ackResponse(push: Int32, callActive: Bool)
    /// CallKit: new incoming call (the phone rings).
    case callkitReport(uuid: Int32, call: Int32, push: Int32)
    /// CallKit: call updated (INVITE claimed the placeholder).
    case callkitUpdate(uuid: Int32)
    /// CallKit: call ended.
    case callkitEnd(uuid: Int32, reason: EndReason)
    /// The SIP stack bound the INVITE to CallKit call `uuid` (R5 claim).
    case inviteClaimed(call: Int32, uuid: Int32)
    /// The user tapped Answer.
    case userAnswer(uuid: Int32)
    /// The user tapped Decline (CallKit ended the call).
    case userDecline(uuid: Int32)
    /// The app sent 603 Decline.
    case declineSent(call: Int32)
    /// The answer action was fulfilled.
    case answerFulfilled(uuid: Int32)
    /// The answer action failed.
    case answerFailed(uuid: Int32)
    /// CallKit timed the answer action out.
    case answerTimedOut(uuid: Int32)
    /// The app sent 200 OK.
    case okSent(call: Int32)
    /// The server got 200 OK; `answerDelayMs` since the user tapped Answer (-1 if unknown).
    case callConnected(call: Int32, answerDelayMs: Int64)
    /// iOS killed the app (R1) and counted strike `strikes`.
    case appKilled(strikes: Int)
    /// iOS stopped delivering VoIP pushes (R2).
    case blackout(strikes: Int)
    /// Some other request (e.g. fetching call details) went out.
    case fetchSent
    /// REGISTER sent.
    case registerSent
    /// The keychain refused the credentials (device locked, `whenUnlocked`).
    case keychainDenied
    /// The server accepted a REGISTER with `granted` seconds.
    case registerReceived(granted: Int)
    /// The app learned the REGISTER result.
    case registrationResult(success: Bool)
    /// No REGISTER within the register wait.
    case registerWaitExpired(call: Int32)
    /// The caller hung up.
    case callerLeft(call: Int32)
    /// Server sent CANCEL.
    case cancelSent(call: Int32)
    /// The app got the CANCEL.
    case cancelReceived(call: Int32)
    /// Server sent the "call gone" notice to the fresh contact (option `gone_notice`).
    case goneNoticeSent(call: Int32)
    /// The app got the "call gone" notice.
    case goneNoticeReceived(call: Int32)
    /// The server failed over; `afterMs` since the call started, checked against `boundMs`.
    case failover(call: Int32, reason: FailoverReason, afterMs: Int64, boundMs: Int64)
    /// A rule was broken.
    case violation(Violation)
    /// Device network changed.
    case connectivity(online: Bool)
    /// App state changed by a scripted step.
    case appState(AppState)
    /// Device lock changed.
    case deviceLock(locked: Bool)
    /// PushKit issued a new token.
    case tokenIssued(token: PushToken)
    /// PushKit invalidated the token.
    case tokenInvalidated
    /// The server stored the app's token (`POST …/voip-push-token`).
    case tokenUploaded(token: PushToken)
    /// The server deleted the app's token (`DELETE …/voip-push-token`).
    case tokenDeleted
}
