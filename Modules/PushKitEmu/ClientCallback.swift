/// One callback of ``PushClientPolicy`` as the client protocol carries it, plus the protocol's
/// own two messages (`hello`, `reset`). docs/pushkit-emulator.md "Bring your own client" has the
/// wire form of each.
public enum ClientCallback: Sendable, Hashable {
    /// First line to every new client process: protocol name, version, `virtual` or `live`.
    case hello(mode: String)
    /// Forget everything: a new scenario (virtual mode) or a fresh process (live); the settings
    /// the rules are judged with.
    case reset(scenario: String, settings: EmulatorSettings)
    /// ``PushClientPolicy/launched(_:)``.
    case launched
    /// ``PushClientPolicy/didReceiveIncomingPush(_:_:)``.
    case push(VoIPPush)
    /// ``PushClientPolicy/didReceiveCallKeys(_:_:)``.
    case callKeys([GatewayCallKey])
    /// ``PushClientPolicy/didReceiveAckResponse(pushID:callActive:_:)``.
    case ackResponse(pushID: Int32, callActive: Bool)
    /// ``PushClientPolicy/didReceiveCallGone(pushID:_:)``.
    case callGone(pushID: Int32)
    /// ``PushClientPolicy/didUpdatePushToken(_:)``.
    case tokenUpdated
    /// ``PushClientPolicy/didInvalidatePushToken(_:)``.
    case tokenInvalidated
    /// ``PushClientPolicy/registrationFinished(success:_:)``.
    case registrationFinished(success: Bool)
    /// ``PushClientPolicy/didReceiveInvite(_:_:)``.
    case invite(IncomingInvite)
    /// ``PushClientPolicy/didReceiveCancel(call:_:)``.
    case cancel(call: Int32)
    /// ``PushClientPolicy/performAnswerCallAction(uuid:_:)``.
    case answerAction(uuid: Int32)
    /// ``PushClientPolicy/performEndCallAction(uuid:_:)``.
    case endAction(uuid: Int32)
    /// ``PushClientPolicy/timerFired(_:_:)``.
    case timer(PolicyTimer)
    /// ``PushClientPolicy/connectivityChanged(online:_:)``.
    case connectivity(online: Bool)

    /// The `callback` name on the wire.
    public var wireName: String {
        switch self {
        case .hello: "hello"
        case .reset: "reset"
        case .launched: "launched"
        case .push: "push"
        case .callKeys: "call_keys"
        case .ackResponse: "ack_response"
        case .callGone: "call_gone"
        case .tokenUpdated: "token_updated"
        case .tokenInvalidated: "token_invalidated"
        case .registrationFinished: "registration_finished"
        case .invite: "invite"
        case .cancel: "cancel"
        case .answerAction: "answer_action"
        case .endAction: "end_action"
        case .timer: "timer"
        case .connectivity: "connectivity"
        }
    }

    /// Delivers this callback to `policy` (the client side of the protocol); hello and reset are
    /// the server loop's, not the policy's.
    public func deliver<P: PushClientPolicy>(to policy: inout P, _ ctx: inout ClientContext) {
        switch self {
        case .hello, .reset: break
        case .launched: policy.launched(&ctx)
        case .push(let push): policy.didReceiveIncomingPush(push, &ctx)
        case .callKeys(let keys): policy.didReceiveCallKeys(keys, &ctx)
        case .ackResponse(let p, let active): policy.didReceiveAckResponse(pushID: p, callActive: active, &ctx)
        case .callGone(let p): policy.didReceiveCallGone(pushID: p, &ctx)
        case .tokenUpdated: policy.didUpdatePushToken(&ctx)
        case .tokenInvalidated: policy.didInvalidatePushToken(&ctx)
        case .registrationFinished(let ok): policy.registrationFinished(success: ok, &ctx)
        case .invite(let invite): policy.didReceiveInvite(invite, &ctx)
        case .cancel(let c): policy.didReceiveCancel(call: c, &ctx)
        case .answerAction(let uuid): policy.performAnswerCallAction(uuid: uuid, &ctx)
        case .endAction(let uuid): policy.performEndCallAction(uuid: uuid, &ctx)
        case .timer(let timer): policy.timerFired(timer, &ctx)
        case .connectivity(let online): policy.connectivityChanged(online: online, &ctx)
        }
    }
}

/// The protocol's fixed names and bounds.
public enum ClientProtocol {
    /// The `protocol` value of `hello`.
    public static let name = "astra-pushsim-client"
    /// The version this emulator speaks; a client must answer `hello` with the same.
    public static let version = 1
    /// Longest answer line accepted (bytes, without the newline).
    public static let maxLineBytes = 65_536
    /// Most ops in one answer.
    public static let maxOps = 256
    /// Longest CallKit UUID or timer name a client may use.
    public static let maxNameBytes = 128
    /// Most distinct UUIDs or timer names one client process may introduce.
    public static let maxNames = 10_000
    /// Longest timer a client may start (ms): one day.
    public static let maxTimerMs: Int64 = 86_400_000
    /// Longest grant lifetime a `renew_grant` may ask (s): a year (the gateway refuses more than 15 days).
    public static let maxGrantSeconds: Int64 = 31_536_000

    /// A policy timer's wire name: `placeholder:UUID`, `merge:UUID`, `named:ID`.
    public static func timerName(_ timer: PolicyTimer) -> String {
        switch timer {
        case .placeholder(let uuid): "placeholder:\(uuid)"
        case .merge(let uuid): "merge:\(uuid)"
        case .named(let id): "named:\(id)"
        }
    }

    /// The timer a wire name stands for.
    public static func timer(named name: String) -> PolicyTimer? {
        let parts = name.split(separator: ":")
        guard parts.count == 2, let n = Int32(parts[1]) else { return nil }
        switch parts[0] {
        case "placeholder": return .placeholder(uuid: n)
        case "merge": return .merge(uuid: n)
        case "named": return .named(n)
        default: return nil
        }
    }

}
