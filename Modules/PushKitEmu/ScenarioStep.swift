/// One thing that happens at a scripted time in a scenario.
public enum StepAction: String, Sendable, Hashable, Codable {
    /// A caller dials the phone (a new server call).
    case call
    /// The caller of call `call` hangs up.
    case hangup
    /// The device loses network.
    case offline
    /// The device gets network back (APNs delivers a stored push).
    case online
    /// The app moves to `state` (the user or iOS did it).
    case app
    /// The device locks.
    case lock
    /// The device unlocks.
    case unlock
    /// PushKit rotates the token.
    case rotateToken = "rotate_token"
    /// PushKit invalidates the token.
    case invalidateToken = "invalidate_token"
    /// The server has a chat message for the user (alert push, or VoIP when misconfigured: R3).
    case message
    /// A VoIP push not made by this server arrives (unreadable / unknown origin / keep-alive).
    case rawPush = "raw_push"
    /// A sealed push no server call stands behind, good or with `seal_fault` (unknown gateway,
    /// wrong call ID, tampered, missing key, late).
    case sealedPush = "sealed_push"
}

/// A scripted step.
public struct ScenarioStep: Sendable, Hashable, Codable {
    /// Virtual time (ms from the start).
    public var at: Int64
    /// What happens.
    public var action: StepAction
    /// For `hangup`: which call (0-based, in `call` order).
    public var call: Int?
    /// For `call`: the user taps Answer this long after the phone first rings (none = never).
    public var answerAfterMs: Int64?
    /// For `call`: the user taps Decline this long after the phone first rings (none = never).
    public var declineAfterMs: Int64?
    /// For `app`: the new state.
    public var state: AppState?
    /// For `raw_push`: the content.
    public var content: PushContent?
    /// For `raw_push`: the origin.
    public var origin: PushOrigin?
    /// For `sealed_push`: what is wrong with it (none = a good one).
    public var sealFault: SealFault?

    public init(
        at: Int64, _ action: StepAction, call: Int? = nil, answerAfterMs: Int64? = nil, declineAfterMs: Int64? = nil,
        state: AppState? = nil,
        content: PushContent? = nil, origin: PushOrigin? = nil, sealFault: SealFault? = nil
    ) {
        self.sealFault = sealFault
        self.at = at
        self.action = action
        self.call = call
        self.answerAfterMs = answerAfterMs
        self.declineAfterMs = declineAfterMs
        self.state = state
        self.content = content
        self.origin = origin
    }
}
