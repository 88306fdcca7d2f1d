import AstraJSON
import HTTP2
import JWT
import PushKitEmu
import SIPCore

/// Where and how the gateway pushes: APNs' provider API and FCM HTTP v1 over HTTP/2 — Apple's and
/// Google's hosts in production, the loopback emulator (``ProviderEmulatorServer``) by default.
public struct PushProviderSettings: Sendable {
    /// `https://api.sandbox.push.apple.com` for sandbox tokens.
    public var apnsSandboxURL: String
    /// `https://api.push.apple.com` for production tokens.
    public var apnsProductionURL: String
    /// `https://fcm.googleapis.com`.
    public var fcmURL: String?
    /// The team's `.p8` key with its 10-character key id (``JWTKey/keyID``), and the team id.
    public var apnsKey: JWTKey
    public var teamID: String
    /// The FCM service account (nil: Android tokens fail over, `fcm_not_configured`).
    public var fcmAccount: FCMServiceAccount?
    /// Trust for the provider hosts: the system's CAs unless a file or PEM is given (the
    /// in-process emulator's own certificate).
    public var caFile: String?
    public var caPEM: [UInt8]?
    /// One request's limit (ms).
    public var requestTimeoutMs = 5_000

    public init(apnsSandboxURL: String, apnsProductionURL: String, apnsKey: JWTKey, teamID: String) {
        self.apnsSandboxURL = apnsSandboxURL
        self.apnsProductionURL = apnsProductionURL
        self.apnsKey = apnsKey
        self.teamID = teamID
    }
}

/// One provider request's result, for the gateway's `push_sent` event and its next step.
public struct ProviderAnswer: Sendable, Hashable {
    public var outcome: ProviderOutcome
    /// HTTP status (0 when no answer came: connection failure, timeout).
    public var status: Int
    /// Request → answer (ms).
    public var elapsedMs: Int64
    /// The request had to open a new connection (TCP + TLS handshake).
    public var newConnection: Bool
}

/// The gateway's push clients (decision D34): one ``HTTP2Client`` — one libcurl multi handle, at
/// most one connection per provider host, every push a stream on it — and the credentials:
///
/// - APNs provider token: an ES256 JWT (`kid` = key id, `iss` = team id, `iat`) minted on first
///   use, reused for every push, replaced after ``apnsTokenRefreshSeconds`` (Apple: no more often
///   than every 20 minutes, no less often than every 60) or when APNs answers 403
///   ExpiredProviderToken;
/// - FCM: an OAuth2 access token from the service account's RS256 assertion (RFC 7523) at its
///   `token_uri`, reused until a minute before `expires_in`, fetched once for concurrent pushes,
///   replaced after 401.
///
/// Wall-clock time (`iat`, expiry) is injected; nothing here prints a token or a key.
public actor PushProviders {
    /// Between Apple's 20 and 60 minutes, away from both ends.
    public static var apnsTokenRefreshSeconds: Int64 { 2_700 }

    public let settings: PushProviderSettings
    private let http: HTTP2Client
    private let wallClockMs: @Sendable () -> Int64
    private var apnsToken: (jwt: String, issuedAt: Int64)?
    /// Provider tokens minted so far (Apple dislikes more than one per 20 minutes).
    public private(set) var apnsTokensMinted = 0
    private var fcmAccess: (token: String, expiresAt: Int64)?
    private var fcmFetch: Task<Result<String, ProviderFailure>, Never>?
    public private(set) var fcmAccessTokensFetched = 0

    struct ProviderFailure: Error {
        let reason: String
    }

    public init(settings: PushProviderSettings, wallClockMs: @escaping @Sendable () -> Int64 = WallClock.nowMs)
        throws(WakeGatewayError)
    {
        self.settings = settings
        self.wallClockMs = wallClockMs
        var options = HTTP2Client.Options()
        options.caFile = settings.caFile
        options.caPEM = settings.caPEM
        options.timeoutMs = settings.requestTimeoutMs
        options.maxBodyBytes = 16_384
        do { http = try HTTP2Client(options: options) } catch {
            throw WakeGatewayError("HTTP/2 client: \(error.detail)")
        }
    }

    /// Closes the provider connections.
    public func close() { http.close() }

    /// Connections opened so far (each a TLS handshake), requests answered, failures.
    public nonisolated var stats: HTTP2Client.Stats { http.stats }

    // MARK: APNs

    /// `POST /3/device/<token>` with the VoIP headers (PUSH-PROVIDERS.md): `apns-push-type: voip`,
    /// `apns-topic`, `apns-priority: 10`, `apns-expiration: 0` (deliver now or never, R6), a fresh
    /// `apns-id`, the bearer provider token.
    public func sendAPNs(token: String, environment: APNsEnvironment, topic: String, payload: String, timeoutMs: Int)
        async -> ProviderAnswer
    {
        let bearer: String
        do { bearer = try currentAPNsToken() } catch {
            return ProviderAnswer(outcome: .fail(reason: "provider token: \(error.detail)"), status: 0, elapsedMs: 0, newConnection: false)
        }
        let base = environment == .production ? settings.apnsProductionURL : settings.apnsSandboxURL
        let request = HTTP2Client.Request(
            method: "POST", url: base + "/3/device/" + token,
            headers: [
                HTTP2Field("authorization", "bearer " + bearer), HTTP2Field("apns-push-type", "voip"),
                HTTP2Field("apns-topic", topic), HTTP2Field("apns-priority", "10"),
                HTTP2Field("apns-expiration", "0"), HTTP2Field("apns-id", APNsID.random()),
                HTTP2Field("content-type", "application/json"),
            ],
            body: Array(payload.utf8), timeoutMs: timeoutMs)
        return await answer(request) { response in
            ProviderOutcome.apns(status: response.status, apnsID: response["apns-id"], body: response.body)
        }
    }

    /// Forget the provider token (APNs said ExpiredProviderToken): the next push mints a new one.
    public func invalidateAPNsToken() { apnsToken = nil }

    func currentAPNsToken() throws(JWTError) -> String {
        let now = wallClockMs() / 1_000
        if let token = apnsToken, now - token.issuedAt < Self.apnsTokenRefreshSeconds, now >= token.issuedAt {
            return token.jwt
        }
        let jwt = try JWTSigner(key: settings.apnsKey).sign([
            "iss": .string(settings.teamID), "iat": .int(now),
        ])
        apnsToken = (jwt, now)
        apnsTokensMinted += 1
        return jwt
    }

    // MARK: FCM

    /// `POST /v1/projects/<id>/messages:send` with `body` (``fcmBody(token:data:ttlSeconds:)``,
    /// made by ``WakePushPayload/fcmBody(token:ttlSeconds:)``).
    public func sendFCM(body: String, timeoutMs: Int) async -> ProviderAnswer {
        guard let account = settings.fcmAccount, let base = settings.fcmURL else {
            return ProviderAnswer(outcome: .fail(reason: "fcm_not_configured"), status: 0, elapsedMs: 0, newConnection: false)
        }
        let access: String
        switch await currentFCMAccess() {
        case .failure(let failure):
            return ProviderAnswer(outcome: .retry(reason: failure.reason), status: 0, elapsedMs: 0, newConnection: false)
        case .success(let token): access = token
        }
        let request = HTTP2Client.Request(
            method: "POST", url: base + "/v1/projects/\(account.projectID)/messages:send",
            headers: [HTTP2Field("authorization", "Bearer " + access), HTTP2Field("content-type", "application/json")],
            body: Array(body.utf8), timeoutMs: timeoutMs)
        return await answer(request) { response in
            ProviderOutcome.fcm(status: response.status, body: response.body, retryAfter: response["retry-after"])
        }
    }

    /// The request body of a high-priority FCM data message to `token` (the `data` values are
    /// strings) with `ttl` = the wake policy's (0 s: a call is now or never). Pure.
    public static func fcmBody(token: String, data: [(String, String)], ttlSeconds: Int64) -> String {
        JSONValue.object([
            "message": [
                "token": .string(token), "data": .object(JSONObject(data.map { (key: $0.0, value: .string($0.1)) })),
                "android": ["priority": "high", "ttl": .string("\(ttlSeconds)s")],
            ]
        ]).jsonText
    }

    /// Forget the access token (FCM said 401): the next push exchanges a new assertion.
    public func invalidateFCMAccess() { fcmAccess = nil }

    /// The cached access token, or one fetch shared by every push waiting for it.
    func currentFCMAccess() async -> Result<String, ProviderFailure> {
        let now = wallClockMs() / 1_000
        if let access = fcmAccess, access.expiresAt - 60 > now { return .success(access.token) }
        if let fetch = fcmFetch { return await fetch.value }
        let fetch = Task { await self.fetchFCMAccess() }
        fcmFetch = fetch
        let result = await fetch.value
        fcmFetch = nil
        return result
    }

    /// The RFC 7523 exchange: `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and the
    /// signed assertion, form-encoded, to the service account's `token_uri`.
    func fetchFCMAccess() async -> Result<String, ProviderFailure> {
        guard let account = settings.fcmAccount else { return .failure(ProviderFailure(reason: "fcm_not_configured")) }
        let now = wallClockMs() / 1_000
        let assertion: String
        do {
            assertion = try JWTSigner(key: account.key).sign([
                "iss": .string(account.clientEmail), "scope": .string(FCMServiceAccount.scope),
                "aud": .string(account.tokenURI), "iat": .int(now), "exp": .int(now + 3_600),
            ])
        } catch { return .failure(ProviderFailure(reason: "oauth assertion: \(error.detail)")) }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let request = HTTP2Client.Request(
            method: "POST", url: account.tokenURI,
            headers: [HTTP2Field("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8),
            timeoutMs: settings.requestTimeoutMs)
        let response: HTTP2Client.Response
        do { response = try await http.send(request) } catch {
            return .failure(ProviderFailure(reason: "oauth: \(error.code.rawValue)"))
        }
        guard response.status == 200, let json = try? JSONValue.parse(response.body),
            case .string(let token)? = json["access_token"], !token.isEmpty
        else {
            let error: String =
                if let json = try? JSONValue.parse(response.body), case .string(let e)? = json["error"] { e } else { "" }
            return .failure(ProviderFailure(reason: "oauth \(response.status) \(Redaction.untrusted(error, limit: 40))"))
        }
        var lifetime: Int64 = 3_599
        if let seconds = json["expires_in"]?.int64Value, seconds > 0 { lifetime = min(seconds, 86_400) }
        fcmAccess = (token, now + lifetime)
        fcmAccessTokensFetched += 1
        return .success(token)
    }

    // MARK: Common

    private func answer(_ request: HTTP2Client.Request, _ read: (HTTP2Client.Response) -> ProviderOutcome) async
        -> ProviderAnswer
    {
        let started = wallClockMs()
        do {
            let response = try await http.send(request)
            return ProviderAnswer(
                outcome: read(response), status: response.status, elapsedMs: response.elapsedMicroseconds / 1_000,
                newConnection: response.newConnection)
        } catch {
            // No answer (connect, TLS, timeout): the provider may be fine a moment later.
            let reason = error.code == .tls ? "tls: \(error.detail)" : error.code.rawValue
            let outcome: ProviderOutcome = error.code == .tls || error.code == .badRequest ? .fail(reason: reason) : .retry(reason: reason)
            return ProviderAnswer(outcome: outcome, status: 0, elapsedMs: wallClockMs() - started, newConnection: false)
        }
    }
}
