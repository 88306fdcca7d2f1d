import AstraJSON
import HTTPLite
import PushKitEmu
import SIPCore

/// The push registrations the gateway knows, by endpoint: the token API's and RFC 8599's. Pure.
///
/// Which one a push uses: the RFC 8599 parameters of the endpoint's last REGISTER when present
/// (the standard form wins: it is what the phone registered most recently over SIP), else the
/// token endpoint's.
public struct PushTokenStore: Sendable {
    public private(set) var api: [String: PushRegistration] = [:]
    public private(set) var rfc8599: [String: PushRegistration] = [:]

    public init() {}

    /// The registration a push for `endpoint` uses.
    public func registration(for endpoint: String) -> PushRegistration? { rfc8599[endpoint] ?? api[endpoint] }

    public mutating func setAPI(_ registration: PushRegistration) { api[registration.endpoint] = registration }
    public mutating func setRFC8599(_ registration: PushRegistration) { rfc8599[registration.endpoint] = registration }
    /// A registration read back from the state store, by its source.
    public mutating func restore(_ registration: PushRegistration) {
        if registration.source == .api { setAPI(registration) } else { setRFC8599(registration) }
    }

    /// `endpoint`'s registrations as a shared store holds them now (another gateway may have
    /// stored or deleted one): each source is set, or removed when the store has none.
    public mutating func replace(endpoint: String, with stored: [PushRegistration]) {
        api[endpoint] = stored.first { $0.endpoint == endpoint && $0.source == .api }
        rfc8599[endpoint] = stored.first { $0.endpoint == endpoint && $0.source == .rfc8599 }
    }

    /// What `request` changes in the durable state, for ``apply(_:sealing:nowMs:)`` with the same
    /// `sealing` and `nowMs` to answer only once it is committed: a registration saved (with the
    /// checked `sealing` of a register), or one deleted.
    public func changes(for request: WakeAPIRequest, sealing: PushSealing? = nil, nowMs: Int64) -> [StateChange] {
        switch request {
        case .registerToken(let endpoint, let token, let environment, let bundleID, let platform, _):
            return [
                .saveRegistration(
                    PushRegistration(
                        endpoint: endpoint, token: token, environment: environment, bundleID: bundleID,
                        platform: platform, updatedAt: nowMs, sealing: sealing))
            ]
        case .deleteToken(let endpoint):
            return api[endpoint] == nil ? [] : [.deleteRegistration(endpoint: endpoint, source: .api)]
        case .stopGrant(let endpoint):
            return stoppedRegistrations(endpoint).map { .saveRegistration($0) }
        case .status, .ack:
            return []
        }
    }

    @discardableResult public mutating func removeAPI(_ endpoint: String) -> Bool {
        api.removeValue(forKey: endpoint) != nil
    }

    /// The provider said `token` is dead (APNs 410 with the time it became invalid, BadDeviceToken,
    /// DeviceTokenNotForTopic; FCM UNREGISTERED): `endpoint`'s registrations holding it are removed —
    /// unless they were updated after `invalidSinceMs` (Apple: a token re-registered after the
    /// timestamp is valid again). Returns the sources dropped.
    public mutating func drop(token: String, endpoint: String, invalidSinceMs: Int64?) -> [PushRegistration.Source] {
        var dropped: [PushRegistration.Source] = []
        for source in [PushRegistration.Source.rfc8599, .api] {
            let current = source == .api ? api[endpoint] : rfc8599[endpoint]
            guard let current, current.token == token else { continue }
            if let since = invalidSinceMs, current.updatedAt > since { continue }
            if source == .api { api[endpoint] = nil } else { rfc8599[endpoint] = nil }
            dropped.append(source)
        }
        return dropped
    }

    /// Applies a token request (`registerToken`, `status`, `deleteToken`) and returns the
    /// response; `ack` is the gateway's and is answered 500 here.
    public mutating func apply(_ request: WakeAPIRequest, sealing: PushSealing? = nil, nowMs: Int64) -> HTTPResponse {
        switch request {
        case .registerToken(let endpoint, let token, let environment, let bundleID, let platform, _):
            let registration = PushRegistration(
                endpoint: endpoint, token: token, environment: environment, bundleID: bundleID, platform: platform,
                updatedAt: nowMs, sealing: sealing)
            setAPI(registration)
            return .json(200, Self.statusJSON(registration, tokenMatches: true))
        case .status(let endpoint, let token):
            guard let registration = api[endpoint] else {
                return .json(404, JSONValue.object(["registered": .bool(false)]).jsonText)
            }
            let given = registration.isAndroid ? token : token.flatMap(TokenText.normalized)
            let matches = given == registration.token
            return .json(200, Self.statusJSON(registration, tokenMatches: matches))
        case .deleteToken(let endpoint):
            guard removeAPI(endpoint) else {
                return .json(404, JSONValue.object(["registered": .bool(false)]).jsonText)
            }
            return .json(200, JSONValue.object(["registered": .bool(false), "deleted": .bool(true)]).jsonText)
        case .stopGrant(let endpoint):
            let stopped = stoppedRegistrations(endpoint)
            guard !stopped.isEmpty else { return .json(404, JSONValue.object(["granted": .bool(false)]).jsonText) }
            for registration in stopped { restore(registration) }
            return .json(200, JSONValue.object(["granted": .bool(false), "stopped": .bool(true)]).jsonText)
        case .ack:
            return .text(500, "ack is handled by the gateway")
        }
    }

    /// `{registered, token_matches, environment, platform, updated_at}`, and `sealed: true` with
    /// `grant_expires_at` for a sealed registration (`grant_stopped: true` once the phone stopped it) — never the raw token, grant or key.
    static func statusJSON(_ registration: PushRegistration, tokenMatches: Bool) -> String {
        var fields: JSONObject = [
            "registered": .bool(true),
            "token_matches": .bool(tokenMatches),
            "environment": .string(registration.environment.rawValue),
            "platform": .string(registration.platform),
            "updated_at": .string(WallClock.iso8601(ms: registration.updatedAt)),
        ]
        if let sealing = registration.sealing {
            fields["sealed"] = .bool(true)
            if sealing.isStopped {
                fields["grant_stopped"] = .bool(true)
            } else {
                fields["grant_expires_at"] = .string(WallClock.iso8601(ms: sealing.grantExpiresAt * 1_000))
            }
        }
        return JSONValue.object(fields).jsonText
    }

    /// `endpoint`'s registrations (token API and RFC 8599) that hold a grant, as they are once the
    /// phone's stop took it: grant and call key gone, the device key still bound
    /// (``PushSealing/stopped``). Empty when it holds no grant.
    func stoppedRegistrations(_ endpoint: String) -> [PushRegistration] {
        [api[endpoint], rfc8599[endpoint]].compactMap { registration in
            guard var registration, let sealing = registration.sealing, !sealing.isStopped else { return nil }
            registration.sealing = sealing.stopped
            return registration
        }
    }

    /// The device key `endpoint` has bound (ADR 0152): the one of its sealed registrations.
    public func boundDeviceKey(_ endpoint: String) -> String? {
        api[endpoint]?.sealing?.deviceKey ?? rfc8599[endpoint]?.sealing?.deviceKey
    }
}
