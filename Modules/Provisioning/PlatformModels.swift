import AstraJSON
import SIPCore

/// A signed-in session: the org JWT from `POST /api/v1/auth/user-login` and when it expires.
public struct PlatformSession: Sendable, Hashable {
    /// The bearer token (a JWT valid 24 h). A secret: never printed.
    public var token: String
    /// The signed-in user's id, when the response names one.
    public var userID: String?
    /// Expiry in seconds since 1970: the JWT `exp` claim, else `expires_at`, else login + 24 h.
    public var expiresAt: Double

    public init(token: String, userID: String?, expiresAt: Double) {
        self.token = token
        self.userID = userID
        self.expiresAt = expiresAt
    }

    /// Parses the login response `{token, user, expires_at?}` received at `now`.
    static func parse(_ body: [UInt8], now: Double) throws(PlatformError) -> PlatformSession {
        let json = try PlatformJSON.object(body, what: "user-login")
        guard case .string(let token)? = json["token"], !token.isEmpty else {
            throw PlatformError(.badResponse, "user-login: response has no token")
        }
        var userID: String?
        if let user = json["user"] { userID = PlatformJSON.string(user["id"]) }
        var expiresAt = jwtExpiry(token)
        if expiresAt == nil, let text = PlatformJSON.string(json["expires_at"]) {
            guard let parsed = ISO8601Timestamp.parse(text) else {
                throw PlatformError(.badResponse, "user-login: expires_at \"\(text)\" is not an ISO-8601 date")
            }
            expiresAt = parsed
        }
        return PlatformSession(token: token, userID: userID, expiresAt: expiresAt ?? now + 24 * 3600)
    }

    /// The `exp` claim (RFC 7519 §4.1.4) of a JWT, read without verifying the signature — the
    /// server verifies it; we only need to know when to log in again.
    static func jwtExpiry(_ token: String) -> Double? {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
            let claims = try? JSONValue.parse(payload), let exp = claims["exp"]?.doubleValue
        else { return nil }
        return exp
    }
}

/// One org user from `GET /api/v1/users`.
public struct PlatformUser: Sendable, Hashable {
    public var id: String
    public var name: String?
    public var email: String?
    /// `sip_port`: the transport the user's line is provisioned for (`wss`, `udp`…).
    public var sipPort: String?
    /// `asterisk_endpoint`: the PBX endpoint id (the SIP user), when provisioned.
    public var asteriskEndpoint: String?
    /// `created_at` in seconds since 1970 (both `…:00Z` and `…:00.000Z` forms).
    public var createdAt: Double?
    /// What was wrong with this user's entry (a bad `created_at`, no `id`): the entry gives one
    /// error line, and the other users' lines are still printed.
    public var problem: PlatformError?

    /// The lines astra-qr hands out: `sip_port == "wss"` and a non-empty `asterisk_endpoint`.
    public var hasUsableWSSLine: Bool {
        sipPort?.lowercased() == "wss" && !(asteriskEndpoint ?? "").isEmpty
    }

    static func parseList(_ body: [UInt8]) throws(PlatformError) -> [PlatformUser] {
        let json = try PlatformJSON.value(body, what: "users")
        let items: [JSONValue]
        switch json {
        case .array(let a): items = a
        case .object:
            guard case .array(let a)? = json["users"] ?? json["data"] else {
                throw PlatformError(.badResponse, "users: expected an array of users")
            }
            items = a
        default: throw PlatformError(.badResponse, "users: expected an array of users")
        }
        var users: [PlatformUser] = []
        for (index, item) in items.enumerated() {
            // One bad entry costs one error line, not every user's line.
            guard case .object = item, let id = PlatformJSON.string(item["id"]) else {
                var broken = PlatformUser(id: "#\(index)")
                broken.problem = PlatformError(.badResponse, "users: entry \(index) has no id")
                users.append(broken)
                continue
            }
            var user = PlatformUser(
                id: id, name: PlatformJSON.string(item["name"]),
                email: PlatformJSON.string(item["email"]),
                sipPort: PlatformJSON.string(item["sip_port"]),
                asteriskEndpoint: PlatformJSON.string(item["asterisk_endpoint"]))
            if let text = PlatformJSON.string(item["created_at"]) {
                if let parsed = ISO8601Timestamp.parse(text) {
                    user.createdAt = parsed
                } else {
                    user.problem = PlatformError(
                        .badResponse, "users: user \(id) created_at \"\(text)\" is not an ISO-8601 date")
                }
            }
            users.append(user)
        }
        return users
    }
}

/// `GET /api/v1/users/:id/sip-credentials` → a line (docs/provisioning.md "Platform API contract").
enum PlatformCredentials {
    /// Either a line object (has `v`) or the credentials shape `{username, auth_username?,
    /// password, domain, server | host+port, transport?, ws_path?}`; transport defaults to wss.
    static func line(_ body: [UInt8], user: PlatformUser) throws(PlatformError) -> Line {
        let json = try PlatformJSON.object(body, what: "sip-credentials for \(user.id)")
        do throws(LineError) {
            if json["v"] != nil { return try Line(jsonValue: json) }
            var members: JSONObject = ["v": 1]
            func put(_ key: String, _ value: String?) {
                if let value, !value.isEmpty { members.append(key, .string(value)) }
            }
            put("display_name", PlatformJSON.string(json["display_name"]) ?? user.name)
            put("user", PlatformJSON.string(json["username"]) ?? user.asteriskEndpoint)
            put("auth_user", PlatformJSON.string(json["auth_username"]))
            put("password", PlatformJSON.string(json["password"]))
            put("domain", PlatformJSON.string(json["domain"]))
            var server = PlatformJSON.string(json["server"])
            if server == nil, let host = PlatformJSON.string(json["host"]) {
                server = PlatformJSON.string(json["port"]).map { "\(host):\($0)" } ?? host
            }
            put("server", server)
            put("transport", PlatformJSON.string(json["transport"]) ?? "wss")
            put("ws_path", PlatformJSON.string(json["ws_path"]))
            // A number or a numeric string, as the API gave it: the line model reads both.
            if let expires = json["expires"], PlatformJSON.string(expires) != nil { members["expires"] = expires }
            return try Line(jsonValue: .object(members))
        } catch {
            throw PlatformError(.badResponse, "sip-credentials for user \(user.id): \(error.description)")
        }
    }
}

/// JSON helpers for API bodies (AstraJSON's one parser).
enum PlatformJSON {
    static func value(_ body: [UInt8], what: String) throws(PlatformError) -> JSONValue {
        do {
            // What the platform returns is input from outside like a code: no repeated names.
            return try JSONValue.parse(body, limits: .uniqueKeys)
        } catch where error.code == .duplicateKey {
            throw PlatformError(.badResponse, "\(what): response refused (\(error))")
        } catch {
            throw PlatformError(.badResponse, "\(what): response is not JSON (\(error))")
        }
    }

    static func object(_ body: [UInt8], what: String) throws(PlatformError) -> JSONValue {
        let json = try value(body, what: what)
        guard case .object = json else { throw PlatformError(.badResponse, "\(what): expected a JSON object") }
        return json
    }

    /// A string, or a number's text (ids and ports come either way).
    static func string(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s)?: s
        case .number(let n)?: n.text
        default: nil
        }
    }
}
