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

    public init(
        at: Int64, _ action: StepAction, call: Int? = nil, answerAfterMs: Int64? = nil, declineAfterMs: Int64? = nil,
        state: AppState? = nil,
        content: PushContent? = nil, origin: PushOrigin? = nil
    ) {
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

/// The phone at time 0.
public struct PhoneSetup: Sendable, Hashable {
    /// App process state.
    public var app: AppState = .killed
    /// Device network.
    public var online = true
    /// Device lock.
    public var locked = false
    /// The app's APNs environment (its token's).
    public var environment: APNsEnvironment = .production
    /// Whether the server holds a binding that has not expired yet (it may still be dead).
    public var registered = false
    /// Whether the server knows the current push token.
    public var tokenOnServer = true
    /// The iOS 26.4 delegate's `mustReport` value for every push; absent = older delegate (R4).
    public var mustReport: Bool?

    public init() {}
}

/// The server's push configuration.
public struct ServerSetup: Sendable, Hashable {
    /// The app's bundle id (APNs topic = bundle id + ".voip").
    public var bundleID = "com.example.astra"
    /// Which APNs endpoint the server talks to.
    public var apnsEnvironment: APNsEnvironment = .production
    /// The APNs request the server sends for a call.
    public var request = APNsRequest()
    /// Whether chat messages go out as VoIP pushes (R3 violation) instead of alerts.
    public var messagesViaVoIP = false

    public init() {}
}

/// A complete scenario: setup, settings, scripted steps, and the expected call outcomes.
public struct Scenario: Sendable, Hashable {
    /// Short name (`killed`, `dead-phone`, …).
    public var name: String
    /// One line on what it exercises.
    public var summary: String
    /// Timeouts and thresholds (partial overrides in JSON).
    public var settings = EmulatorSettings()
    /// The phone at time 0.
    public var phone = PhoneSetup()
    /// The server.
    public var server = ServerSetup()
    /// The script.
    public var steps: [ScenarioStep] = []
    /// Expected final outcome per call, in order (`connected`, `failed_over`, `cancelled`).
    public var expect: [CallOutcome]?

    public init(name: String, summary: String) {
        self.name = name
        self.summary = summary
    }
}

/// How a server call ended, as the caller saw it.
public enum CallOutcome: String, Sendable, Hashable, Codable {
    /// The phone answered.
    case connected
    /// The server moved to the next target.
    case failedOver = "failed_over"
    /// The caller hung up first.
    case cancelled
    /// Still in progress when the simulation ended.
    case pending
}
