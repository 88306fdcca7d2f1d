/// FCM HTTP v1's error codes (`error.details[].errorCode`, PUSH-PROVIDERS.md) with the HTTP
/// status and the Google API `error.status` each comes with.
public enum FCMErrorCode: String, Sendable, Hashable, CaseIterable {
    /// The token is no longer valid (app uninstalled, token rotated): drop it.
    case unregistered = "UNREGISTERED"
    /// A bad request: the token's format, a data value that is not a string, a bad ttl, too big.
    case invalidArgument = "INVALID_ARGUMENT"
    /// The token belongs to another sender (FCM project).
    case senderIDMismatch = "SENDER_ID_MISMATCH"
    /// Too many messages (to the device, or the project): back off.
    case quotaExceeded = "QUOTA_EXCEEDED"
    /// FCM is overloaded: retry with back-off.
    case unavailable = "UNAVAILABLE"
    /// An unknown internal error: retry with back-off.
    case `internal` = "INTERNAL"
    /// The APNs or web push credential behind the message was refused.
    case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"

    public var status: Int {
        switch self {
        case .unregistered: 404
        case .invalidArgument: 400
        case .senderIDMismatch: 403
        case .quotaExceeded: 429
        case .unavailable: 503
        case .internal: 500
        case .thirdPartyAuthError: 401
        }
    }

    /// The canonical Google API status (`error.status`).
    public var googleStatus: String {
        switch self {
        case .unregistered: "NOT_FOUND"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .senderIDMismatch: "PERMISSION_DENIED"
        case .quotaExceeded: "RESOURCE_EXHAUSTED"
        case .unavailable: "UNAVAILABLE"
        case .internal: "INTERNAL"
        case .thirdPartyAuthError: "UNAUTHENTICATED"
        }
    }
}

/// FCM registration tokens: opaque text (`[A-Za-z0-9_:-]`, 16–512 characters here), kept exactly
/// as given (case matters, unlike APNs' hex), shown only redacted (``TokenText/redact(_:)``).
public enum FCMTokenText {
    public static let rule = "token must be an FCM registration token: 16-512 characters of A-Z a-z 0-9 _ : -"

    /// The token when acceptable, else nil.
    public static func valid(_ text: String) -> String? {
        let bytes = text.utf8
        guard bytes.count >= 16, bytes.count <= 512, bytes.allSatisfy(isTokenByte) else { return nil }
        return text
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 || b == 58 || b == 45
    }

    /// An application id or project id: 1–128 of letters, digits, `.`, `_`, `-`.
    public static func isName(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= 128
            && bytes.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 46 || $0 == 95 || $0 == 45 }
    }
}
