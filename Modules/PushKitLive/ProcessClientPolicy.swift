import PushKitEmu

/// A ``PushClientPolicy`` whose code runs in the user's client process: every callback is one
/// line to it and one answer line back (``ClientBridge`` renders and reads them, ``ClientSession``
/// does the IO). The emulator's checks see the ops exactly as an in-process policy's, so the same
/// ``RuleChecker`` judges it; a client that hangs, exits or writes junk fails the callback
/// (``ClientContext/fail(_:)``) and the run stops with a `CLIENT` violation.
///
/// The value is per app process (the bridge's UUID and timer names); the emulator drops it with
/// the process. Blocking: the callback waits for the answer (virtual time stands still).
public struct ProcessClientPolicy: PushClientPolicy {
    let session: ClientSession
    var bridge = ClientBridge()

    public init(session: ClientSession) { self.session = session }

    public var name: String { session.name }

    public var processID: Int32? { session.pid }

    public mutating func processEnded() { session.processEnded() }

    mutating func call(_ callback: ClientCallback, _ ctx: inout ClientContext) {
        let line = bridge.line(for: callback, ctx)
        switch session.exchange(line, callback: callback.wireName) {
        case .success(let answer):
            do throws(ClientFault) {
                try bridge.apply(answer: answer, to: &ctx, callback: callback.wireName)
            } catch {
                session.exchangeFailed(error)
                ctx.fail(error)
            }
        case .failure(let fault):
            ctx.fail(fault)
        }
    }

    public mutating func launched(_ ctx: inout ClientContext) {
        if let fault = session.launch() {
            ctx.fail(fault)
            return
        }
        call(.launched, &ctx)
    }

    public mutating func didReceiveIncomingPush(_ push: VoIPPush, _ ctx: inout ClientContext) {
        call(.push(push), &ctx)
    }

    public mutating func didReceiveAckResponse(pushID: Int32, callActive: Bool, _ ctx: inout ClientContext) {
        call(.ackResponse(pushID: pushID, callActive: callActive), &ctx)
    }

    public mutating func didReceiveCallGone(pushID: Int32, _ ctx: inout ClientContext) {
        call(.callGone(pushID: pushID), &ctx)
    }

    public mutating func didReceiveCallKeys(_ keys: [GatewayCallKey], _ ctx: inout ClientContext) {
        call(.callKeys(keys), &ctx)
    }

    public mutating func didUpdatePushToken(_ ctx: inout ClientContext) { call(.tokenUpdated, &ctx) }

    public mutating func didInvalidatePushToken(_ ctx: inout ClientContext) { call(.tokenInvalidated, &ctx) }

    public mutating func registrationFinished(success: Bool, _ ctx: inout ClientContext) {
        call(.registrationFinished(success: success), &ctx)
    }

    public mutating func didReceiveInvite(_ invite: IncomingInvite, _ ctx: inout ClientContext) {
        call(.invite(invite), &ctx)
    }

    public mutating func didReceiveCancel(call c: Int32, _ ctx: inout ClientContext) { call(.cancel(call: c), &ctx) }

    public mutating func performAnswerCallAction(uuid: Int32, _ ctx: inout ClientContext) {
        call(.answerAction(uuid: uuid), &ctx)
    }

    public mutating func performEndCallAction(uuid: Int32, _ ctx: inout ClientContext) {
        call(.endAction(uuid: uuid), &ctx)
    }

    public mutating func timerFired(_ timer: PolicyTimer, _ ctx: inout ClientContext) { call(.timer(timer), &ctx) }

    public mutating func connectivityChanged(online: Bool, _ ctx: inout ClientContext) {
        call(.connectivity(online: online), &ctx)
    }
}

/// `--client-cmd` as a ``PolicySource``: each scenario run begins with `reset` on the session
/// (virtual time) and gets a fresh per-process policy value.
public struct ClientProcessSource: PolicySource {
    /// The client command's session.
    public let session: ClientSession

    public init(session: ClientSession) { self.session = session }

    public var name: String { session.name }

    public var failure: ClientFault? { session.fault }

    /// A client process opens sealed pushes with its own AES-256-GCM: the gateway seals with it too.
    public var sealing: any SealBox { CallSealBox() }

    public func policy(for scenario: Scenario) -> ProcessClientPolicy {
        session.begin(scenario: scenario.name, settings: scenario.settings)
        return ProcessClientPolicy(session: session)
    }
}
