import AstraJSON
import SIPCore

/// What a push provider's answer means for the sender — pure, one table per provider, so the
/// client's behaviour is tested without sockets (PUSH-PROVIDERS.md, issue "Real push provider
/// APIs").
public enum ProviderOutcome: Sendable, Hashable {
    /// Accepted (APNs 200 + `apns-id`; FCM 200 + message `name`).
    case accepted(id: String)
    /// The token is dead for this app: stop using it, fail the call over at once. APNs 410
    /// Unregistered/ExpiredToken (with the time it became invalid), 400 BadDeviceToken (wrong
    /// environment or not a token) and DeviceTokenNotForTopic (another app's token); FCM
    /// UNREGISTERED and SENDER_ID_MISMATCH.
    case dropToken(reason: String, sinceMs: Int64?)
    /// Our credential was refused as stale: make a new one and retry once (APNs 403
    /// ExpiredProviderToken; FCM 401 UNAUTHENTICATED — the OAuth access token expired).
    case refreshCredentials(reason: String)
    /// Too many pushes to this token: pause it (APNs 429 TooManyRequests; FCM 429
    /// QUOTA_EXCEEDED, with `retry-after` seconds when sent).
    case backOff(reason: String, retryAfterMs: Int64?)
    /// The provider is in trouble, not the request: retry with back-off within the ack window
    /// (APNs 500 InternalServerError, 503 ServiceUnavailable/Shutdown; FCM 500 INTERNAL, 503
    /// UNAVAILABLE; a connection failure or timeout).
    case retry(reason: String)
    /// The request itself is wrong (a header, the payload, the topic, our key): failing over is
    /// all that is left; retrying would fail the same way. Includes 429
    /// TooManyProviderTokenUpdates (we refreshed too often: the next push uses the current token).
    case fail(reason: String)

    /// The reason text for events (`rejected:<reason>`), `""` when accepted.
    public var reason: String {
        switch self {
        case .accepted: ""
        case .dropToken(let r, _), .refreshCredentials(let r), .backOff(let r, _), .retry(let r), .fail(let r): r
        }
    }

    /// Apple's answer: `status`, `apns-id`, the JSON body `{"reason":…,"timestamp":…}`.
    public static func apns(status: Int, apnsID: String?, body: [UInt8]) -> ProviderOutcome {
        let json = try? JSONValue.parse(body)
        let reason: String = if case .string(let r)? = json?["reason"] { r } else { "HTTP \(status)" }
        switch status {
        case 200:
            return .accepted(id: apnsID ?? "")
        case 410:
            var since: Int64?
            since = json?["timestamp"]?.int64Value
            return .dropToken(reason: reason, sinceMs: since)
        case 400 where reason == APNsReason.badDeviceToken.rawValue || reason == APNsReason.deviceTokenNotForTopic.rawValue:
            return .dropToken(reason: reason, sinceMs: nil)
        case 403 where reason == APNsReason.expiredProviderToken.rawValue:
            return .refreshCredentials(reason: reason)
        case 429 where reason == APNsReason.tooManyRequests.rawValue:
            return .backOff(reason: reason, retryAfterMs: nil)
        case 500...599:
            return .retry(reason: reason)
        default:
            return .fail(reason: reason)
        }
    }

    /// Google's answer: `status`, the JSON body (`name`, or `error.details[].errorCode` /
    /// `error.status`), `retry-after` seconds.
    public static func fcm(status: Int, body: [UInt8], retryAfter: String?) -> ProviderOutcome {
        let json = try? JSONValue.parse(body)
        if status == 200 {
            let name: String = if case .string(let n)? = json?["name"] { n } else { "" }
            return .accepted(id: name)
        }
        var code = ""
        if case .array(let details)? = json?["error"]?["details"] {
            for detail in details {
                if case .string(let c)? = detail["errorCode"] { code = c }
            }
        }
        if code.isEmpty, case .string(let s)? = json?["error"]?["status"] { code = s }
        if code.isEmpty { code = "HTTP \(status)" }
        let retryMs = retryAfter.flatMap { Int64($0.filter { $0 != " " }) }.map { min($0, 3_600) * 1_000 }
        switch (status, code) {
        case (_, FCMErrorCode.unregistered.rawValue), (_, FCMErrorCode.senderIDMismatch.rawValue):
            return .dropToken(reason: code, sinceMs: nil)
        case (401, _) where code != FCMErrorCode.thirdPartyAuthError.rawValue:
            return .refreshCredentials(reason: code)
        case (429, _), (_, FCMErrorCode.quotaExceeded.rawValue):
            return .backOff(reason: code, retryAfterMs: retryMs)
        case (500...599, _):
            return .retry(reason: code)
        default:
            return .fail(reason: code)
        }
    }
}
