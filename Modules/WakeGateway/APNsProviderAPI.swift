import HTTP2
import JWT

/// One accepted request of Apple's provider API, for the device side of the emulator
/// (``PushEmulator``) to judge against the token's state (retired, environment, topic, rate) and
/// deliver.
public struct APNsSubmission: Sendable, Hashable {
    /// The device token from the path, lowercase hex.
    public var token: String
    public var topic: String
    public var pushType: String
    public var priority: Int
    /// `apns-expiration` (UNIX seconds; 0 = deliver now or drop).
    public var expiration: Int64
    /// The request's `apns-id` when it sent one (APNs makes one otherwise).
    public var apnsID: String?
    public var collapseID: String?
    /// The JSON payload as sent.
    public var payload: [UInt8]
}

/// Apple's provider API (`POST /3/device/<token>`, token-based auth) as the emulator checks it —
/// pure: a request in, a refusal with Apple's status and reason or a submission out
/// (PUSH-PROVIDERS.md). What it checks, in order:
///
/// | Check | Refusal |
/// |---|---|
/// | method POST | 405 MethodNotAllowed |
/// | path `/3/device/<token>` | 404 BadPath; empty token 400 MissingDeviceToken |
/// | `authorization` / `apns-*` fields once each | 400 DuplicateHeaders |
/// | `authorization: bearer <JWT>`: ES256 signed by the team's key named by `kid`, `iss` = team id, `iat` within the last hour | 403 MissingProviderToken, InvalidProviderToken, ExpiredProviderToken |
/// | a new provider token on a connection within 20 min of the last | 429 TooManyProviderTokenUpdates |
/// | `apns-topic` present (and one of the team's topics, when configured) | 400 MissingTopic, TopicDisallowed |
/// | `apns-push-type` a known type; `voip` with a `.voip` topic and back | 400 InvalidPushType, BadTopic |
/// | `apns-priority` 1, 5 or 10 | 400 BadPriority |
/// | `apns-expiration` a non-negative integer | 400 BadExpirationDate |
/// | `apns-id` a UUID; `apns-collapse-id` ≤ 64 bytes | 400 BadMessageId, BadCollapseId |
/// | the token hex, 16–512 digits | 400 BadDeviceToken |
/// | payload present, ≤ 5120 bytes (VoIP) or 4096 | 400 PayloadEmpty, 413 PayloadTooLarge |
///
/// The token's own state (retired → 410 Unregistered with timestamp, wrong environment → 400
/// BadDeviceToken, another app's topic → 400 DeviceTokenNotForTopic, 429 TooManyRequests) is the
/// device side's.
public struct APNsProviderAPI: Sendable {
    public enum Decision: Sendable, Hashable {
        case refuse(APNsReason)
        case submit(APNsSubmission)
    }

    /// Verifies provider tokens: the team's public key(s) with their key ids, policy = team id,
    /// no `exp`, one hour from `iat`, `kid` required (``providerPolicy(teamID:)``).
    public var verifier: JWTVerifier
    /// The team's topics (bundle ids and their `.voip`); nil = any.
    public var topics: Set<String>?
    /// The last provider token accepted on each connection, with its `iat`.
    private var lastToken: [Int: (token: String, issuedAt: Int64)] = [:]
    private var lastTokenOrder: [Int] = []
    /// Connections whose last token is remembered, at most.
    public static var rememberedConnections: Int { 4_096 }
    /// Apple: refresh no more often than every 20 minutes.
    public static var minimumTokenIntervalSeconds: Int64 { 1_200 }
    /// VoIP payload limit (other push types: 4096).
    public static var maxVoIPPayloadBytes: Int { 5_120 }

    public init(verifier: JWTVerifier, topics: Set<String>? = nil) {
        self.verifier = verifier
        self.topics = topics
    }

    /// What the emulator asks of an APNs provider token.
    public static func providerPolicy(teamID: String) -> JWTPolicy {
        var policy = JWTPolicy(issuer: teamID, clockSkewSeconds: 60, maxLifetimeSeconds: 3_600)
        policy.requireExpiration = false
        policy.maxAgeSeconds = 3_600
        policy.requireKeyID = true
        return policy
    }

    static let pushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk",
    ]

    public mutating func decide(_ request: HTTP2Request, nowSeconds: Int64) -> Decision {
        guard request.method == "POST" else { return .refuse(.methodNotAllowed) }
        let prefix = "/3/device/"
        guard request.path.hasPrefix(prefix) else { return .refuse(.badPath) }
        let rawToken = String(request.path.dropFirst(prefix.count))
        guard !rawToken.isEmpty else { return .refuse(.missingDeviceToken) }
        guard !rawToken.contains("/"), !rawToken.contains("?") else { return .refuse(.badPath) }
        for name in ["authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-id", "apns-collapse-id"]
        where request.values(name).count > 1 {
            return .refuse(.duplicateHeaders)
        }
        if let refusal = checkProviderToken(request, nowSeconds: nowSeconds) { return .refuse(refusal) }
        guard let topic = request["apns-topic"], !topic.isEmpty else { return .refuse(.missingTopic) }
        if let topics, !topics.contains(topic) { return .refuse(.topicDisallowed) }
        guard let pushType = request["apns-push-type"], Self.pushTypes.contains(pushType) else {
            return .refuse(.invalidPushType)
        }
        if (pushType == "voip") != topic.hasSuffix(".voip") {
            return .refuse(pushType == "voip" ? .badTopic : .invalidPushType)
        }
        var priority = 10
        if let text = request["apns-priority"] {
            guard let value = Int(text), [1, 5, 10].contains(value) else { return .refuse(.badPriority) }
            priority = value
        }
        var expiration: Int64 = 0
        if let text = request["apns-expiration"] {
            guard text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(text) else {
                return .refuse(.badExpirationDate)
            }
            expiration = value
        }
        let apnsID = request["apns-id"]
        if let apnsID, !Self.isUUID(apnsID) { return .refuse(.badMessageID) }
        let collapseID = request["apns-collapse-id"]
        if let collapseID, collapseID.utf8.count > 64 { return .refuse(.badCollapseID) }
        guard let token = TokenText.normalized(rawToken) else { return .refuse(.badDeviceToken) }
        guard request.bodyBytes > 0 else { return .refuse(.payloadEmpty) }
        let limit = pushType == "voip" ? Self.maxVoIPPayloadBytes : 4_096
        guard request.bodyBytes <= limit, !request.bodyTruncated else { return .refuse(.payloadTooLarge) }
        return .submit(
            APNsSubmission(
                token: token, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
                apnsID: apnsID?.uppercased(), collapseID: collapseID, payload: request.body))
    }

    /// `authorization: bearer <JWT>`, verified; a new token on a connection within 20 minutes of
    /// the previous one is refused.
    mutating func checkProviderToken(_ request: HTTP2Request, nowSeconds: Int64) -> APNsReason? {
        guard let field = request["authorization"] else { return .missingProviderToken }
        let parts = field.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .invalidProviderToken }
        let token = String(parts[1])
        let claims: JWTClaims
        do { claims = try verifier.verify(token, now: nowSeconds) } catch {
            return error.code == .expired ? .expiredProviderToken : .invalidProviderToken
        }
        let issuedAt = claims.issuedAt ?? nowSeconds
        if let last = lastToken[request.connection], last.token != token {
            if issuedAt - last.issuedAt < Self.minimumTokenIntervalSeconds, nowSeconds - last.issuedAt <= 3_600 {
                return .tooManyProviderTokenUpdates
            }
        }
        if lastToken.updateValue((token, issuedAt), forKey: request.connection) == nil {
            lastTokenOrder.append(request.connection)
            if lastTokenOrder.count > Self.rememberedConnections { lastToken[lastTokenOrder.removeFirst()] = nil }
        }
        return nil
    }

    /// `8-4-4-4-12` hex digits (RFC 9562 §4 text form), either case.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (i, b) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                guard b == UInt8(ascii: "-") else { return false }
            } else {
                let hex = (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)
                guard hex else { return false }
            }
        }
        return true
    }
}
