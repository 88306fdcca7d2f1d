import AstraJSON
import HTTPLite
import JWT
import SIPCore

/// Who may call the token endpoints (`voip-push-token` POST/DELETE, `voip-push-status`), and for
/// which `asterisk_endpoint` — the platform contract: every call but the ack carries
/// `Authorization: Bearer <jwt>` (RFC 6750 §2.1), an org-scoped role token (docs/wake-gateway.md
/// "Authentication", decision D25). Pure: the time is a parameter.
///
/// Claims this gateway reads (besides `exp`/`nbf`/`iat`/`iss`/`aud`, checked by ``JWTVerifier``):
///
/// | Claim | Meaning |
/// |---|---|
/// | `asterisk_endpoint` | the one endpoint a `user` token may manage (its own line) |
/// | `role` | `user` (default) or `org_admin`: may manage every endpoint this gateway serves |
/// | `org` | the organisation; must equal `--jwt-org` when that is set |
///
/// Outcomes: no or malformed `Authorization` → 401 with `WWW-Authenticate: Bearer realm=…`;
/// a token that does not verify → 401 `error="invalid_token"`; a verified token for another
/// endpoint or org → 403 `error="insufficient_scope"` — the same answer whether that endpoint
/// has a token or exists at all, so the status endpoint is no oracle.
public struct TokenAPIAuth: Sendable {
    public var verifier: JWTVerifier
    /// When set, the token's `org` claim must equal it.
    public var org: String?

    public init(verifier: JWTVerifier, org: String? = nil) {
        self.verifier = verifier
        self.org = org
    }

    /// A caller the token vouches for.
    public struct Principal: Sendable, Hashable {
        public var subject: String?
        /// The endpoint a `user` token manages (nil for an admin or a token without one).
        public var endpoint: String?
        public var orgAdmin: Bool
        public var org: String?

        public func may(manage endpoint: String) -> Bool { orgAdmin || self.endpoint == endpoint }
    }

    /// Why a request was refused (the event's `reason`): a ``JWTError`` code or one of these.
    public enum Refusal: Error, Sendable, Hashable {
        case missing
        case malformedHeader
        case invalid(JWTError.Code)
        case wrongOrg
        case otherEndpoint

        public var reason: String {
            switch self {
            case .missing: "no_token"
            case .malformedHeader: "malformed_authorization"
            case .invalid(let code): code.rawValue
            case .wrongOrg: "wrong_org"
            case .otherEndpoint: "other_endpoint"
            }
        }

        /// The HTTP answer (RFC 6750 §3): 401 with a Bearer challenge, or 403.
        public var response: HTTPResponse {
            let realm = "Bearer realm=\"astra-wakegw\""
            var response: HTTPResponse
            switch self {
            case .missing:
                response = .json(401, #"{"error":"unauthorized"}"#)
                response.headers.append(HTTPHeader("WWW-Authenticate", realm))
            case .malformedHeader:
                response = .json(401, #"{"error":"unauthorized"}"#)
                response.headers.append(HTTPHeader("WWW-Authenticate", realm + ", error=\"invalid_request\""))
            case .invalid(let code):
                response = .json(401, JSONValue.object(["error": .string("invalid_token"), "reason": .string(code.rawValue)]).jsonText)
                response.headers.append(HTTPHeader("WWW-Authenticate", realm + ", error=\"invalid_token\""))
            case .wrongOrg, .otherEndpoint:
                response = .json(403, #"{"error":"forbidden"}"#)
                response.headers.append(HTTPHeader("WWW-Authenticate", realm + ", error=\"insufficient_scope\""))
            }
            return response
        }
    }

    /// The principal of `request`'s bearer token at `nowSeconds`, or why not.
    public func authenticate(_ request: HTTPRequest, nowSeconds: Int64) -> Result<Principal, Refusal> {
        let values = request.headers.filter { $0.name.lowercased() == "authorization" }
        guard let value = values.first?.value else { return .failure(.missing) }
        guard values.count == 1 else { return .failure(.malformedHeader) }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .failure(.malformedHeader) }
        let claims: JWTClaims
        do { claims = try verifier.verify(String(parts[1]).trimmingSpaces, now: nowSeconds) } catch {
            return .failure(.invalid(error.code))
        }
        let principal = Principal(
            subject: claims.subject, endpoint: claims.string("asterisk_endpoint"),
            orgAdmin: claims.string("role") == "org_admin", org: claims.string("org"))
        if let org, principal.org != org { return .failure(.wrongOrg) }
        return .success(principal)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
