/// An event in the discrete-event queue: small plain values only (no payload allocation).
enum SimEvent: Sendable {
    /// Scripted scenario step `index`.
    case step(Int32)
    /// Server: OPTIONS reached the contact (answered if the app's SIP flow is up).
    case qualifyArrives(Int32)
    /// Server: the 200 to OPTIONS arrived.
    case qualifyAnswered(Int32)
    /// Server: qualify timer.
    case qualifyTimeout(Int32)
    /// Server: ack window timer.
    case ackWindow(Int32)
    /// Server: register wait timer.
    case registerWait(Int32)
    /// Server: INVITE Timer B.
    case inviteTimeout(Int32)
    /// APNs → device: push `index` reaches the phone.
    case apnsDeliver(Int32)
    /// The app is up: run the PushKit handler for push `index`.
    case handlerRun(Int32)
    /// Phone → server: push-ack for push `index`.
    case ackArrives(Int32)
    /// Server → phone: ack response.
    case ackResponse(push: Int32, active: Bool)
    /// Phone → server: REGISTER asking `expires` seconds.
    case registerArrives(expires: Int32)
    /// Server → phone: REGISTER result.
    case registerResult(Bool)
    /// Phone → server: token upload `index` (into the upload table).
    case tokenUploadArrives(Int32)
    /// Phone → server: token delete.
    case tokenDeleteArrives
    /// Server → phone: INVITE for call `index`.
    case inviteArrives(Int32)
    /// Server → phone: CANCEL for call `index`.
    case cancelArrives(Int32)
    /// Server → phone: "call gone" notice for call `index` (option `gone_notice`).
    case goneNoticeArrives(Int32)
    /// Phone → server: 200 OK for call `index`.
    case okArrives(Int32)
    /// The user taps Answer on CallKit call `uuid`.
    case userAnswer(Int32)
    /// The user taps Decline on CallKit call `uuid` (`CXEndCallAction`).
    case userDecline(Int32)
    /// Phone → server: 603 Decline for call `index`.
    case declineArrives(Int32)
    /// CallKit: the answer action of `uuid` times out.
    case answerDeadline(Int32)
    /// Checker: the placeholder `uuid` must be claimed or ended by now (R5).
    case placeholderDeadline(Int32)
    /// The call grant of joined gateway `index` reaches its expiry (stale when it was renewed since).
    case grantExpires(Int32)
    /// A policy timer, for the process generation that started it.
    case policyTimer(PolicyTimer, generation: Int32)
}
