import AstraJSON
import Glibc
import SIPCore

/// The platform API client (docs/provisioning.md "Platform API contract"): signs in with a
/// Firebase ID token, caches the 24 h org JWT until it expires, lists org users and fetches the
/// SIP credentials of those with a WSS line.
///
/// An actor because it owns the cached session; the clock is injected (`now`, seconds since
/// 1970) so expiry is tested without waiting (swift-certificates `fixedValidationTime` style).
public actor PlatformClient {
    /// Log in again this many seconds before the JWT expires.
    public static let expirySkew = 60.0

    let baseURL: String
    let firebaseToken: String
    let transport: any HTTPTransport
    let now: @Sendable () -> Double
    let store: (any PlatformSessionStore)?
    private var cached: PlatformSession?
    /// How many times this client signed in (tests check the cache with it).
    public private(set) var loginCount = 0

    public init(
        baseURL: String, firebaseToken: String, transport: any HTTPTransport = CurlHTTPTransport(),
        now: @escaping @Sendable () -> Double = PlatformClient.wallClock, store: (any PlatformSessionStore)? = nil
    ) throws(PlatformError) {
        let trimmed = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        guard trimmed.hasPrefix("http://") || trimmed.hasPrefix("https://"), trimmed.count > 8 else {
            throw PlatformError(.badURL, "API URL \"\(baseURL)\" must start with http:// or https://")
        }
        self.baseURL = trimmed
        self.firebaseToken = firebaseToken
        self.transport = transport
        self.now = now
        self.store = store
        self.cached = store?.load(api: trimmed)
    }

    /// Seconds since 1970 from `CLOCK_REALTIME`.
    public static func wallClock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The cached session, or a new one when there is none or it expires within ``expirySkew``.
    public func session() async throws(PlatformError) -> PlatformSession {
        if let cached, cached.expiresAt - PlatformClient.expirySkew > now() { return cached }
        return try await login()
    }

    /// `POST /api/v1/auth/user-login {firebase_token}` → `{token, user}`.
    func login() async throws(PlatformError) -> PlatformSession {
        cached = nil
        let body = JSONValue.object(["firebase_token": .string(firebaseToken)]).jsonText
        let request = HTTPRequest(
            method: "POST", url: baseURL + "/api/v1/auth/user-login",
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
            body: Array(body.utf8))
        loginCount += 1
        let response = try await transport.send(request)
        try check(response, request, refused: "the Firebase token was refused")
        let session = try PlatformSession.parse(response.body, now: now())
        cached = session
        store?.save(session, api: baseURL)
        return session
    }

    /// `GET path` with the bearer token; on a 401 with a cached token, signs in once more.
    func authorizedGET(_ path: String) async throws(PlatformError) -> [UInt8] {
        var retried = false
        while true {
            let fromCache = cached != nil
            let session = try await session()
            let request = HTTPRequest(
                method: "GET", url: baseURL + path,
                headers: [
                    ("Authorization", "Bearer " + session.token),
                    ("Accept", "application/json"),
                ])
            let response = try await transport.send(request)
            if response.status == 401, fromCache, !retried {
                cached = nil
                retried = true
                continue
            }
            try check(response, request, refused: "the org token was refused")
            return response.body
        }
    }

    /// `GET /api/v1/users`: every user of the signed-in org.
    public func users() async throws(PlatformError) -> [PlatformUser] {
        try PlatformUser.parseList(try await authorizedGET("/api/v1/users"))
    }

    /// `GET /api/v1/users/:id/sip-credentials` as a validated line.
    public func credentials(for user: PlatformUser) async throws(PlatformError) -> Line {
        let id = PlatformClient.escapePathSegment(user.id)
        return try PlatformCredentials.line(try await authorizedGET("/api/v1/users/\(id)/sip-credentials"), user: user)
    }

    /// The users with a usable WSS line, each with its line or the error fetching it.
    public func lines() async throws(PlatformError) -> [(user: PlatformUser, line: Result<Line, PlatformError>)] {
        var out: [(user: PlatformUser, line: Result<Line, PlatformError>)] = []
        for user in try await users() where user.hasUsableWSSLine || user.problem != nil {
            if let problem = user.problem {
                out.append((user, .failure(problem)))
                continue
            }
            do {
                out.append((user, .success(try await credentials(for: user))))
            } catch {
                out.append((user, .failure(error)))
            }
        }
        return out
    }

    func check(_ response: HTTPResponse, _ request: HTTPRequest, refused: String) throws(PlatformError) {
        let path = String(request.url.dropFirst(baseURL.count))
        let what = "\(request.method) \(path)"
        switch response.status {
        case 200..<300: return
        case 401, 403:
            throw PlatformError(.unauthorized, "\(what): HTTP \(response.status), \(refused)", status: response.status)
        case 500..<600:
            throw PlatformError(
                .serverError, "\(what): HTTP \(response.status) from the API\(reason(response))",
                status: response.status)
        default:
            throw PlatformError(
                .httpStatus, "\(what): unexpected HTTP \(response.status)\(reason(response))",
                status: response.status)
        }
    }

    /// `: message` from a JSON `{"error": "…"}` body, at most 120 characters, controls stripped
    /// and secrets redacted (the server wrote it), else empty.
    func reason(_ response: HTTPResponse) -> String {
        guard let json = try? JSONValue.parse(response.body), let text = PlatformJSON.string(json["error"]) else {
            return ""
        }
        return ": " + Redaction.untrusted(text, limit: 120)
    }

    /// RFC 3986 §3.3 path segment escaping for user ids.
    static func escapePathSegment(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            if LineServer.isURLUnreserved(b) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = String(b, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }
}

extension LineServer {
    /// RFC 3986 §2.3 unreserved: ALPHA DIGIT - . _ ~
    static func isURLUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E
            || b == 0x5F || b == 0x7E
    }
}
