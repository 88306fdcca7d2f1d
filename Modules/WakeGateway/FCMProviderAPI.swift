import AstraJSON
import HTTP2
import HTTPLite
import JWT
import SIPCore

/// One accepted FCM HTTP v1 send, for the device side (``PushEmulator/submitFCM(_:)``).
public struct FCMSubmission: Sendable, Hashable {
    public var token: String
    public var project: String
    /// `message.data`: string values only (FCM's rule).
    public var data: JSONValue
    /// `message.android.priority`, lowercase (`high` | `normal`).
    public var priority: String
    /// `message.android.ttl` in whole seconds (0 = deliver now or drop).
    public var ttlSeconds: Int64
}

/// Google's side of FCM HTTP v1, as the emulator checks it — pure: the OAuth2 token endpoint
/// (RFC 7523 JWT bearer grant) and `POST /v1/projects/<id>/messages:send` (PUSH-PROVIDERS.md).
///
/// | Request | Checked | Refusal |
/// |---|---|---|
/// | `POST <token path>` form `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>` | grant type; RS256 signature by the service account's key (`kid` = `private_key_id`), `iss` = `client_email`, `aud` = `token_uri`, `scope` has firebase.messaging, `exp − iat` ≤ 1 h, not expired | 400 `unsupported_grant_type`, `invalid_grant`, `invalid_scope` |
/// | `POST /v1/projects/<id>/messages:send` | `authorization: Bearer` an unexpired access token we issued; the project is the account's | 401 UNAUTHENTICATED, 403 PERMISSION_DENIED |
/// | body | `{"message":{"token":…}}` (no topic/condition), `data` values strings and no reserved keys, `android.priority` high/normal, `android.ttl` `<seconds>s` ≤ 28 days, data ≤ 4096 bytes, token format | 400 INVALID_ARGUMENT |
///
/// Errors are Google's shape: `{"error":{"code":…,"message":…,"status":…,"details":[{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":…}]}}`. The token's own state
/// (rotated → UNREGISTERED, another project → SENDER_ID_MISMATCH, 429 QUOTA_EXCEEDED) is the device
/// side's.
public struct FCMProviderAPI: Sendable {
    public enum Decision: Sendable, Hashable {
        /// Answer at once (the token endpoint's answers, refusals).
        case answer(HTTP2Response)
        /// A valid send: the device side decides.
        case submit(FCMSubmission, validateOnly: Bool)
    }

    /// The service account whose assertions are accepted, and whose project messages may go to.
    public let projectID: String
    public let clientEmail: String
    public let tokenURI: String
    /// The path of ``tokenURI`` (`/token`).
    public let tokenPath: String
    let verifier: JWTVerifier
    /// Access tokens issued, with their expiry (UNIX s); capped, oldest dropped.
    private var accessTokens: [String: Int64] = [:]
    private var accessOrder: [String] = []
    public static var maxAccessTokens: Int { 10_000 }
    /// Access tokens live an hour (Google: `expires_in` 3599).
    public static var accessTokenSeconds: Int64 { 3_599 }
    static let messagePrefix = "/v1/projects/"
    static let messageSuffix = "/messages:send"

    /// `account`'s public half verifies the assertions.
    public init(account: FCMServiceAccount) throws(JWTError) {
        projectID = account.projectID
        clientEmail = account.clientEmail
        tokenURI = account.tokenURI
        var path = account.tokenURI.dropFirst("https://".count)
        if let slash = path.firstIndex(of: "/") { path = path[slash...] } else { path = "/" }
        tokenPath = String(path)
        var policy = JWTPolicy(issuer: account.clientEmail, audience: account.tokenURI, maxLifetimeSeconds: 3_600)
        policy.requireKeyID = true
        verifier = JWTVerifier(keys: [try account.key.publicHalf()], policy: policy)
    }

    public mutating func decide(_ request: HTTP2Request, nowSeconds: Int64, random: [UInt8]) -> Decision {
        if request.path == tokenPath { return .answer(exchange(request, nowSeconds: nowSeconds, random: random)) }
        guard request.path.hasPrefix(Self.messagePrefix), request.path.hasSuffix(Self.messageSuffix) else {
            return .answer(Self.error(404, "NOT_FOUND", "The requested URL was not found on this server."))
        }
        guard request.method == "POST" else {
            return .answer(Self.error(405, "METHOD_NOT_ALLOWED", "Use POST."))
        }
        guard let field = request["authorization"], field.lowercased().hasPrefix("bearer "),
            let expiry = accessTokens[String(field.dropFirst(7))], expiry > nowSeconds
        else {
            return .answer(
                Self.error(
                    401, "UNAUTHENTICATED",
                    "Request had invalid authentication credentials. Expected OAuth 2 access token."))
        }
        let project = request.path.dropFirst(Self.messagePrefix.count).dropLast(Self.messageSuffix.count)
        guard project == projectID else {
            return .answer(Self.error(403, "PERMISSION_DENIED", "Permission denied for project \(Self.safe(String(project)))."))
        }
        guard !request.bodyTruncated, let json = try? JSONValue.parse(request.body), case .object = json,
            let message = json["message"], case .object = message
        else { return .answer(Self.fcmError(.invalidArgument, "Invalid JSON payload received.")) }
        switch Self.submission(message, project: projectID) {
        case .failure(let invalid): return .answer(Self.fcmError(.invalidArgument, invalid.message))
        case .success(let submission):
            return .submit(submission, validateOnly: json["validate_only"] == .bool(true))
        }
    }

    /// The message's fields, checked.
    /// An INVALID_ARGUMENT's message.
    struct Invalid: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    static func submission(_ message: JSONValue, project: String) -> Result<FCMSubmission, Invalid> {
        if message["topic"] != nil || message["condition"] != nil {
            return .failure(Invalid("Only token targets are supported by this endpoint's emulator."))
        }
        guard case .string(let raw)? = message["token"], let token = FCMTokenText.valid(raw) else {
            return .failure(Invalid("The registration token is not a valid FCM registration token"))
        }
        var data: JSONValue = [:]
        if let value = message["data"] {
            guard case .object(let members) = value else { return .failure(Invalid("data must be a map of strings.")) }
            var size = 0
            for (key, item) in members {
                guard case .string(let text) = item else {
                    return .failure(Invalid("Invalid value at 'message.data[\(Self.safe(key))]' (TYPE_STRING)"))
                }
                let lower = key.lowercased()
                if ["from", "notification", "message_type"].contains(lower) || lower.hasPrefix("google") || lower.hasPrefix("gcm") {
                    return .failure(Invalid("Invalid data payload key: \(Self.safe(key))"))
                }
                size += key.utf8.count + text.utf8.count
            }
            guard size <= 4_096 else { return .failure(Invalid("Message is too big (data over 4096 bytes)")) }
            data = value
        }
        var priority = "normal"
        var ttl: Int64 = 2_419_200
        if let android = message["android"] {
            guard case .object = android else { return .failure(Invalid("android must be an object.")) }
            if let value = android["priority"] {
                guard case .string(let text) = value, ["high", "normal"].contains(text.lowercased()) else {
                    return .failure(Invalid("Invalid value at 'message.android.priority'"))
                }
                priority = text.lowercased()
            }
            if let value = android["ttl"] {
                guard case .string(let text) = value, let seconds = Self.seconds(text), seconds <= 2_419_200 else {
                    return .failure(Invalid("Invalid value at 'message.android.ttl' (google.protobuf.Duration)"))
                }
                ttl = seconds
            }
        }
        return .success(FCMSubmission(token: token, project: project, data: data, priority: priority, ttlSeconds: ttl))
    }

    /// A protobuf Duration in JSON (`"3.5s"`): whole seconds (fractions dropped), or nil.
    static func seconds(_ text: String) -> Int64? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12, whole.allSatisfy(\.isNumber),
            parts.count == 1 || (parts[1].count >= 1 && parts[1].count <= 9 && parts[1].allSatisfy(\.isNumber))
        else { return nil }
        return Int64(whole)
    }

    /// The token endpoint: a JWT bearer assertion (RFC 7523 §2.1) for an access token.
    mutating func exchange(_ request: HTTP2Request, nowSeconds: Int64, random: [UInt8]) -> HTTP2Response {
        guard request.method == "POST", !request.bodyTruncated, let form = HTTPForm.fields(request.body) else {
            return Self.oauthError("invalid_request", "Bad Request")
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return Self.oauthError("unsupported_grant_type", "Invalid grant_type")
        }
        guard let assertion = form["assertion"] else { return Self.oauthError("invalid_request", "Missing assertion") }
        let claims: JWTClaims
        do { claims = try verifier.verify(assertion, now: nowSeconds) } catch {
            let description =
                switch error.code {
                case .badSignature: "Invalid JWT Signature."
                case .expired, .badLifetime, .notYetValid:
                    "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
                case .wrongAudience: "Invalid JWT: aud is not the token URI."
                case .wrongIssuer: "Invalid JWT: iss is not the service account."
                default: "Invalid JWT."
                }
            return Self.oauthError("invalid_grant", description)
        }
        let scopes = (claims.string("scope") ?? "").split(separator: " ").map(String.init)
        guard scopes.contains(FCMServiceAccount.scope) || scopes.contains("https://www.googleapis.com/auth/cloud-platform")
        else { return Self.oauthError("invalid_scope", "The scope does not allow FCM.") }
        let token = "ya29." + Base64URL.encode(random)
        accessTokens[token] = nowSeconds + Self.accessTokenSeconds
        accessOrder.append(token)
        while accessOrder.count > Self.maxAccessTokens { accessTokens[accessOrder.removeFirst()] = nil }
        return .json(
            200,
            JSONValue.object([
                "access_token": .string(token), "expires_in": .int(Self.accessTokenSeconds),
                "token_type": .string("Bearer"),
            ]).jsonText, headers: [HTTP2Field("cache-control", "no-store")])
    }

    /// A Google API error with an FCM error code.
    public static func fcmError(_ code: FCMErrorCode, _ message: String) -> HTTP2Response {
        .json(
            code.status,
            JSONValue.object([
                "error": [
                    "code": .int(code.status), "message": .string(message), "status": .string(code.googleStatus),
                    "details": [
                        [
                            "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                            "errorCode": .string(code.rawValue),
                        ]
                    ],
                ]
            ]).jsonText)
    }

    /// A Google API error without FCM details (auth, path).
    static func error(_ status: Int, _ google: String, _ message: String) -> HTTP2Response {
        .json(
            status,
            JSONValue.object([
                "error": ["code": .int(status), "message": .string(message), "status": .string(google)]
            ]).jsonText)
    }

    /// RFC 6749 §5.2 error answer.
    static func oauthError(_ error: String, _ description: String) -> HTTP2Response {
        .json(
            400,
            JSONValue.object(["error": .string(error), "error_description": .string(description)]).jsonText)
    }

    /// An outsider's text in an answer: one short line.
    static func safe(_ text: String) -> String { Redaction.untrusted(text, limit: 64) }
}
