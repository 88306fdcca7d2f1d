/// The app's process state as iOS runs it (Apple: "Managing your app's life cycle").
public enum AppState: String, Sendable, Hashable, Codable, CaseIterable {
    /// On screen; the SIP connection is up and answers qualify (OPTIONS).
    case foreground
    /// Running off screen; no VoIP socket since iOS 10, so qualify goes unanswered; a push runs the
    /// handler at once.
    case background
    /// In memory but not running; a push resumes it after `launchFromSuspendedMs`.
    case suspended
    /// Not running (never launched, swiped away, or killed by iOS); a push launches it after
    /// `launchFromKilledMs` with fresh in-memory state.
    case killed
}

/// APNs environment a token belongs to; a token only works against its own endpoint.
public enum APNsEnvironment: String, Sendable, Hashable, Codable {
    /// api.sandbox.push.apple.com (development builds).
    case sandbox
    /// api.push.apple.com (TestFlight and App Store builds).
    case production
}

/// Keychain accessibility class the app stores SIP credentials with (Apple: kSecAttrAccessible…).
public enum KeychainProtection: String, Sendable, Hashable, Codable {
    /// Readable only while the device is unlocked: fails on a locked phone woken by a push.
    case whenUnlocked
    /// Readable after the first unlock since boot: works from the lock screen.
    case afterFirstUnlock
}

/// CallKit `CXCallEndedReason` subset (Apple CallKit documentation).
public enum EndReason: String, Sendable, Hashable, Codable {
    /// An error occurred (R5: placeholder without INVITE, unreadable/unknown/late push).
    case failed
    /// The remote party ended the call (R5: CANCEL before or after wake).
    case remoteEnded
    /// The call was never answered.
    case unanswered
    /// Answered on another device.
    case answeredElsewhere
    /// Declined on another device.
    case declinedElsewhere
}

/// What a VoIP push says it is. docs/push-wake-rules.md R3: only `.call` belongs on the VoIP channel.
public enum PushContent: String, Sendable, Hashable, Codable {
    /// An incoming call: caller number, push-id, Call-ID.
    case call
    /// A chat message or other notification (R3 violation when sent as VoIP).
    case message
    /// A keep-alive "wake-up" (R3 violation when sent as VoIP).
    case keepAlive = "keep_alive"
    /// A payload the app cannot decrypt or parse (R5: report, then end at once).
    case unreadable
}

/// Where a push claims to come from (R5: unknown origin → report, then end at once).
public enum PushOrigin: String, Sendable, Hashable, Codable {
    /// A server this phone registered with.
    case known
    /// A server the app has no record of (e.g. an old account or a forged grant).
    case unknown
}
