/// The headers of one APNs request (Apple: "Sending notification requests to APNs").
public struct APNsRequest: Sendable, Hashable {
    /// `apns-push-type`; VoIP pushes must say `voip`.
    public var pushType: String = "voip"
    /// `apns-topic`; VoIP pushes must use `<bundle id>.voip`.
    public var topic: String = "com.example.astra.voip"
    /// `apns-priority`; VoIP pushes must be 10 (immediate).
    public var priority: Int = 10
    /// `apns-expiration` in seconds; 0 = deliver now or drop (docs/push-wake-rules.md R6).
    public var expirationSeconds: Int = 0
    /// Payload size in bytes (VoIP limit 5120).
    public var payloadBytes: Int = 220

    public init() {}
}

/// Why APNs refused a request (the `reason` strings of Apple's error table).
public enum APNsRejection: String, Sendable, Hashable, Codable {
    /// `apns-push-type` is not `voip`.
    case invalidPushType = "InvalidPushType"
    /// `apns-topic` is not `<bundle id>.voip`.
    case badTopic = "BadTopic"
    /// `apns-priority` is not 10.
    case badPriority = "BadPriority"
    /// Payload above the VoIP limit.
    case payloadTooLarge = "PayloadTooLarge"
    /// Token from the other environment (sandbox vs production).
    case badDeviceToken = "BadDeviceToken"
    /// 410: the token was rotated away or invalidated.
    case unregistered = "Unregistered"
    /// 429: too many requests to the same device token (the sender must back off).
    case tooManyRequests = "TooManyRequests"

    /// Header problems are R6 violations by the sender; token problems are lifecycle outcomes.
    public var isHeaderProblem: Bool {
        switch self {
        case .invalidPushType, .badTopic, .badPriority, .payloadTooLarge: true
        case .badDeviceToken, .unregistered, .tooManyRequests: false
        }
    }
}
