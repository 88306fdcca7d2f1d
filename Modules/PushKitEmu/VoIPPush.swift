/// A VoIP push as the app's PushKit delegate receives it.
public struct VoIPPush: Sendable, Hashable {
    /// The push-id the server generated (the ack capability).
    public var pushID: Int32
    /// The server call this push is for, or -1 when the push is not for a call the server knows.
    public var call: Int32
    /// What the payload is.
    public var content: PushContent
    /// Where it comes from.
    public var origin: PushOrigin
    /// Server send time (ms, virtual); the app compares it with its own clock to spot late pushes.
    public var sentAt: Int64
    /// The iOS 26.4 `mustReport` metadata (R4); `nil` on the older delegate (R1 always applies).
    public var mustReport: Bool?
    /// The sealed caller, gateway hash and end time when the gateway seals (nil: a clear push).
    /// The phone must judge it (``CallKeychain/judge(_:now:sealing:)``) before it trusts the push.
    public var sealed: SealedPush?

    public init(
        pushID: Int32, call: Int32, content: PushContent, origin: PushOrigin, sentAt: Int64,
        mustReport: Bool?, sealed: SealedPush? = nil
    ) {
        self.sealed = sealed
        self.pushID = pushID
        self.call = call
        self.content = content
        self.origin = origin
        self.sentAt = sentAt
        self.mustReport = mustReport
    }
}

/// A SIP INVITE as the app's SIP stack hands it over.
public struct IncomingInvite: Sendable, Hashable {
    /// The server call (stands for the Call-ID).
    public var call: Int32
    /// The push-id the server put in the INVITE (RFC 8599-style), or -1 on a direct ring.
    public var pushID: Int32

    public init(call: Int32, pushID: Int32) {
        self.call = call
        self.pushID = pushID
    }
}
