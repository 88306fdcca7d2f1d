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
    /// Whether the server sends a "call gone" notice to a woken phone whose caller left before the
    /// INVITE (our extension to v2; see ``WakeDecision/goneNotice``).
    public var goneNotice = false
    /// Whether the gateway seals the caller of every call push under the phone's call key
    /// (``SealedGateway``); the phone then joins it and the app is given its key at launch.
    public var sealed = false

    public init() {}
}
