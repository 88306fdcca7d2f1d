import AstraJSON
import HTTPLite
import PushKitEmu
import SIPCore

/// The gateway's HTTP API (docs/push-wake-rules.md "The server"), parsed and validated
/// from an ``HTTPRequest`` — pure, so the contract is tested without sockets.
///
/// | Method | Path | Body / query |
/// |---|---|---|
/// | POST | `/api/v1/users/voip-push-token` | `{asterisk_endpoint, token, environment, bundle_id, platform}`, optionally `device_key`, `grant`, `call_key` (sealed push) |
/// | GET | `/api/v1/users/voip-push-status` | `?asterisk_endpoint=&token=` |
/// | DELETE | `/api/v1/users/voip-push-token` | `?asterisk_endpoint=` |
/// | DELETE | `/api/v1/users/voip-push-grant` | `?asterisk_endpoint=` (the phone's stop: grant and call key dropped) |
/// | POST | `/api/v1/users/voip-push-ack` | `{push_id}` (no auth: the push-id is the capability) |
///
/// All but the ack need `Authorization: Bearer <jwt>` (``TokenAPIAuth``).
public enum WakeAPIRequest: Sendable, Hashable {
    case registerToken(
        endpoint: String, token: String, environment: APNsEnvironment, bundleID: String, platform: String,
        sealing: SealingOffer?)
    case status(endpoint: String, token: String?)
    case deleteToken(endpoint: String)
    /// The phone's stop request (sealed push): this gateway may no longer ring it under the grant
    /// it gave; the grant and call key are dropped, the device key stays bound.
    case stopGrant(endpoint: String)
    case ack(pushID: String)

    public static let tokenPath = "/api/v1/users/voip-push-token"
    public static let statusPath = "/api/v1/users/voip-push-status"
    public static let ackPath = "/api/v1/users/voip-push-ack"
    public static let grantPath = "/api/v1/users/voip-push-grant"
    /// The longest `device_key`, `grant` or `call_key` accepted (a grant is about 350 bytes).
    public static let sealingFieldBytes = 4_096

    /// Whether requests to `path` must carry a valid bearer token (every token endpoint; not the ack).
    public static func requiresAuthentication(_ path: String) -> Bool {
        path == tokenPath || path == statusPath || path == grantPath
    }

    /// The `asterisk_endpoint` the request is about (nil for the ack).
    public var endpoint: String? {
        switch self {
        case .registerToken(let endpoint, _, _, _, _, _), .status(let endpoint, _), .deleteToken(let endpoint),
            .stopGrant(let endpoint):
            endpoint
        case .ack: nil
        }
    }

    /// The request, or the response that refuses it (404 unknown path, 405 wrong method, 400 bad
    /// JSON or fields — each with a one-line reason).
    public static func parse(_ request: HTTPRequest) -> Parsed {
        switch request.path {
        case tokenPath:
            switch request.method {
            case "POST": return parseRegister(request)
            case "DELETE":
                guard let endpoint = nonEmpty(request.query["asterisk_endpoint"]) else {
                    return .reject(.text(400, "query parameter asterisk_endpoint is required"))
                }
                return .request(.deleteToken(endpoint: endpoint))
            default: return .reject(methodNotAllowed("POST, DELETE"))
            }
        case grantPath:
            guard request.method == "DELETE" else { return .reject(methodNotAllowed("DELETE")) }
            guard let endpoint = nonEmpty(request.query["asterisk_endpoint"]) else {
                return .reject(.text(400, "query parameter asterisk_endpoint is required"))
            }
            return .request(.stopGrant(endpoint: endpoint))
        case statusPath:
            guard request.method == "GET" else { return .reject(methodNotAllowed("GET")) }
            guard let endpoint = nonEmpty(request.query["asterisk_endpoint"]) else {
                return .reject(.text(400, "query parameter asterisk_endpoint is required"))
            }
            return .request(.status(endpoint: endpoint, token: nonEmpty(request.query["token"])))
        case ackPath:
            guard request.method == "POST" else { return .reject(methodNotAllowed("POST")) }
            switch object(request) {
            case .failure(let refusal): return .reject(refusal.response)
            case .success(let json):
                switch string(json, "push_id") {
                case .failure(let refusal): return .reject(refusal.response)
                case .success(let pushID): return .request(.ack(pushID: pushID))
                }
            }
        default:
            return .reject(.text(404, "no such endpoint: \(request.path)"))
        }
    }

    /// ``parse(_:)``'s outcome.
    public enum Parsed: Sendable, Hashable {
        case request(WakeAPIRequest)
        case reject(HTTPResponse)
    }

    private static func parseRegister(_ request: HTTPRequest) -> Parsed {
        let json: JSONValue
        switch object(request) {
        case .failure(let refusal): return .reject(refusal.response)
        case .success(let value): json = value
        }
        var fields: [String: String] = [:]
        for key in ["asterisk_endpoint", "token", "environment", "bundle_id", "platform"] {
            switch string(json, key) {
            case .failure(let refusal): return .reject(refusal.response)
            case .success(let value): fields[key] = value
            }
        }
        let platform = fields["platform"]!
        guard platform == "ios" || platform == "android" else {
            return .reject(.text(400, "platform must be \"ios\" (APNs) or \"android\" (FCM)"))
        }
        let valid = platform == "ios" ? TokenText.normalized(fields["token"]!) : FCMTokenText.valid(fields["token"]!)
        guard let token = valid else {
            return .reject(
                .text(400, platform == "ios" ? "token must be hex, even length, 16-512 digits" : FCMTokenText.rule))
        }
        guard let environment = APNsEnvironment(rawValue: fields["environment"]!) else {
            return .reject(.text(400, "environment must be \"sandbox\" or \"production\""))
        }
        let sealing: SealingOffer?
        switch sealingOffer(json) {
        case .failure(let refusal): return .reject(refusal.response)
        case .success(let offer): sealing = offer
        }
        return .request(
            .registerToken(
                endpoint: fields["asterisk_endpoint"]!, token: token, environment: environment,
                bundleID: fields["bundle_id"]!, platform: platform, sealing: sealing))
    }

    /// The sealed-push fields of a registration (docs/wake-gateway.md "Sealed push"): `grant` (the
    /// compact JWS) and `call_key` (base64url, 32 bytes) together, `device_key` (base64url SPKI
    /// DER) with the first of them or when it changes. None of them: nil (clear pushes). Their
    /// content is checked by ``SealingOffer/checked(endpoint:bound:gatewayID:nowSeconds:)``; a refusal
    /// here never echoes a value.
    static func sealingOffer(_ json: JSONValue) -> Result<SealingOffer?, Refusal> {
        let keys = ["device_key", "grant", "call_key"]
        var values: [String: String] = [:]
        for key in keys {
            guard let value = json[key], value != .null else { continue }
            guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= sealingFieldBytes else {
                return .failure(Refusal(.text(400, "field \(key) must be a non-empty string of at most \(sealingFieldBytes) bytes")))
            }
            values[key] = text
        }
        if values.isEmpty { return .success(nil) }
        guard let grant = values["grant"], let callKey = values["call_key"] else {
            return .failure(Refusal(.text(400, "fields grant and call_key go together (sealed push)")))
        }
        return .success(SealingOffer(deviceKey: values["device_key"], grant: grant, callKey: callKey))
    }

    private static func object(_ request: HTTPRequest) -> Result<JSONValue, Refusal> {
        if let type = request.header("Content-Type"), !type.lowercased().hasPrefix("application/json") {
            return .failure(Refusal(.text(415, "Content-Type must be application/json")))
        }
        let json: JSONValue
        do { json = try JSONValue.parse(request.body) } catch {
            return .failure(Refusal(.text(400, "bad JSON: \(error)")))
        }
        guard case .object = json else { return .failure(Refusal(.text(400, "bad JSON: the body must be an object"))) }
        return .success(json)
    }

    private static func string(_ json: JSONValue, _ key: String) -> Result<String, Refusal> {
        guard let value = json[key] else { return .failure(Refusal(.text(400, "missing field \(key)"))) }
        guard case .string(let text) = value else {
            return .failure(Refusal(.text(400, "field \(key) must be a string, not \(value.typeName)")))
        }
        guard !text.isEmpty, text.count <= 512 else {
            return .failure(Refusal(.text(400, "field \(key) must be 1-512 characters")))
        }
        return .success(text)
    }

    private static func nonEmpty(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }

    private static func methodNotAllowed(_ allow: String) -> HTTPResponse {
        var response = HTTPResponse.text(405, "method not allowed; use \(allow)")
        response.headers.append(HTTPHeader("Allow", allow))
        return response
    }
}

/// A refused request's response, as an `Error` for `Result`.
struct Refusal: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}
