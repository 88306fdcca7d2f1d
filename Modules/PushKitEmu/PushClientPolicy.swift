/// The client code under test: the app's PushKit delegate, CallKit provider delegate and SIP glue.
///
/// The emulator calls one method per event, synchronously, in virtual time; the policy answers by
/// recording ``ClientOp``s on the context. `PKPushRegistryDelegate.didReceiveIncomingPush` maps to
/// ``didReceiveIncomingPush(_:_:)``: returning from it is "the handler returned / completion called"
/// (R1). Live mode (module PushKitLive) drives the same protocol from a real SIP user agent, and a
/// client in another language plugs in over the client protocol (`--client-cmd`,
/// docs/pushkit-emulator.md "Bring your own client").
public protocol PushClientPolicy: Sendable {
    /// A short name for timelines (`naive`, `correct`).
    var name: String { get }
    /// The process started (cold launch or resume after kill): all in-memory state is fresh.
    mutating func launched(_ ctx: inout ClientContext)
    /// PushKit: a VoIP push arrived (R1: report before returning).
    mutating func didReceiveIncomingPush(_ push: VoIPPush, _ ctx: inout ClientContext)
    /// The server answered the push-ack: whether the call is still up (CANCEL-before-wake, R5).
    mutating func didReceiveAckResponse(pushID: Int32, callActive: Bool, _ ctx: inout ClientContext)
    /// The server says the call of push `pushID` is over (gone notice after wake, before the INVITE).
    mutating func didReceiveCallGone(pushID: Int32, _ ctx: inout ClientContext)
    /// The app read its call keys from the keychain (after every ``PushClientPolicy/launched(_:)`` on a phone that
    /// joined sealing gateways): one per gateway hash. Default: nothing (a client that ignores
    /// them cannot open a sealed push, and must then report it as the app's name and end it).
    mutating func didReceiveCallKeys(_ keys: [GatewayCallKey], _ ctx: inout ClientContext)
    /// PushKit: a new token (first issue or rotation).
    mutating func didUpdatePushToken(_ ctx: inout ClientContext)
    /// PushKit: the token was invalidated.
    mutating func didInvalidatePushToken(_ ctx: inout ClientContext)
    /// The REGISTER finished.
    mutating func registrationFinished(success: Bool, _ ctx: inout ClientContext)
    /// SIP: an INVITE arrived.
    mutating func didReceiveInvite(_ invite: IncomingInvite, _ ctx: inout ClientContext)
    /// SIP: a CANCEL for server call `call` arrived.
    mutating func didReceiveCancel(call: Int32, _ ctx: inout ClientContext)
    /// CallKit: the user tapped Answer (`CXAnswerCallAction`).
    mutating func performAnswerCallAction(uuid: Int32, _ ctx: inout ClientContext)
    /// CallKit: the user tapped Decline / End (`CXEndCallAction`); CallKit has ended the call.
    mutating func performEndCallAction(uuid: Int32, _ ctx: inout ClientContext)
    /// A timer the policy started fired.
    mutating func timerFired(_ timer: PolicyTimer, _ ctx: inout ClientContext)
    /// Device connectivity changed while the app runs.
    mutating func connectivityChanged(online: Bool, _ ctx: inout ClientContext)

    /// The OS process the app code runs in, when it has one of its own (a client process in live
    /// mode); nil for a policy inside the emulator's process. Default nil.
    var processID: Int32? { get }
    /// The app's process ended (iOS killed it, or the run is over): not an iOS callback — a
    /// policy in the emulator's process needs nothing (its state is dropped with the value); a
    /// client process that stands for one app process is killed. Default: nothing.
    mutating func processEnded()
}

extension PushClientPolicy {
    public mutating func didReceiveCallKeys(_ keys: [GatewayCallKey], _ ctx: inout ClientContext) {}
    public var processID: Int32? { nil }
    public mutating func processEnded() {}
}
