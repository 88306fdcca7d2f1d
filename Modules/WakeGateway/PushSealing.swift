import JWT
import SIPCore

/// What a phone gave this gateway so that its pushes travel sealed (docs/wake-gateway.md "Sealed
/// push", ADR 0150, 0151, 0152): its device key, its call grant for this gateway and the 32-byte
/// call key the caller is sealed under. Kept on the ``PushRegistration`` it came with and in the
/// state store (mode 0600 file or the database), never in a log: ``description`` shows only the
/// device key's id prefix and the grant's expiry.
public struct PushSealing: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The device key, base64url SPKI DER (P-256): bound to the endpoint by its first sealed
    /// registration.
    public var deviceKey: String
    /// The compact JWS (ES256) the device key signed for this gateway.
    public var grant: String
    /// The call key (``CallSeal/keyBytes`` bytes).
    public var callKey: [UInt8]
    /// The grant's `exp` (s since 1970): no sealed push after it (plus the skew).
    public var grantExpiresAt: Int64

    public init(deviceKey: String, grant: String, callKey: [UInt8], grantExpiresAt: Int64) {
        self.deviceKey = deviceKey
        self.grant = grant
        self.callKey = callKey
        self.grantExpiresAt = grantExpiresAt
    }

    /// The call key as stored: base64url without padding.
    public var callKeyText: String { Base64URL.encode(callKey) }

    /// This sealing once the phone asked this gateway to stop (`DELETE /voip-push-grant`): the
    /// grant and the call key are gone, the device key stays bound to the endpoint. A stopped
    /// registration gets no push at all — not sealed (no key), and never clear, which the phone
    /// did not ask for — until the phone registers again with a new grant.
    public var stopped: PushSealing { PushSealing(deviceKey: deviceKey, grant: "", callKey: [], grantExpiresAt: 0) }

    /// Whether the phone has stopped this gateway (``stopped``).
    public var isStopped: Bool { grant.isEmpty }

    /// A sealing read back from a state store's columns; nil when they are empty (clear pushes)
    /// or the call key is not 32 bytes (a row this gateway did not write: pushes go clear); a
    /// device key without a grant is a stopped one (``stopped``).
    static func stored(deviceKey: String?, grant: String?, callKey: String?, grantExpiresAt: Int64?) -> PushSealing? {
        if let deviceKey, !deviceKey.isEmpty, grant?.isEmpty ?? true {
            return PushSealing(deviceKey: deviceKey, grant: "", callKey: [], grantExpiresAt: 0)
        }
        guard let deviceKey, !deviceKey.isEmpty, let grant, !grant.isEmpty, let callKey,
            let key = Base64URL.decode(callKey), key.count == CallSeal.keyBytes, let grantExpiresAt
        else { return nil }
        return PushSealing(deviceKey: deviceKey, grant: grant, callKey: key, grantExpiresAt: grantExpiresAt)
    }

    /// Whether the grant still lets this gateway ring the phone at wall-clock `nowSeconds`.
    public func grantLive(nowSeconds: Int64) -> Bool { nowSeconds < grantExpiresAt + CallGrantChecker.skewSeconds }

    public var description: String {
        "PushSealing(device key \(deviceKey.prefix(6))…, grant until \(grantExpiresAt), call key <redacted>)"
    }
    public var debugDescription: String { description }
}

/// The sealing fields of a registration as the phone sent them (token API body or RFC 8599
/// Contact parameters), before any check. Carries the secrets: never printed.
public struct SealingOffer: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// base64url SPKI DER; nil: the key the endpoint has bound already.
    public var deviceKey: String?
    public var grant: String
    /// base64url of the 32-byte call key.
    public var callKey: String

    public init(deviceKey: String?, grant: String, callKey: String) {
        self.deviceKey = deviceKey
        self.grant = grant
        self.callKey = callKey
    }

    /// The RFC 8599 Contact parameters of a sealed registration (ours: RFC 8599 §4.1 defines
    /// only the provider's own): the device key, the grant and the call key, as in the token API.
    public static let pnDeviceKey = "pn-astra-device-key"
    public static let pnGrant = "pn-astra-grant"
    public static let pnCallKey = "pn-astra-call-key"

    public var description: String { "SealingOffer(<redacted>)" }
    public var debugDescription: String { description }

    /// The checked sealing, or why it is refused. Pure (the time is a parameter): the device
    /// key must be a P-256 SPKI and, when the endpoint has one bound (`bound`), that one; the
    /// call key 32 bytes of base64url; the grant valid for `gatewayID` by ``CallGrantChecker``
    /// (ES256 only, signed by the device key, `aud` this gateway, `sub` the registering
    /// `endpoint`, unexpired with 60 s skew, at most 15 days).
    public func checked(
        endpoint: String, bound: String?, gatewayID: String, nowSeconds: Int64
    ) -> Result<PushSealing, SealingRefusal> {
        guard let deviceKey = deviceKey ?? bound else { return .failure(.badField("device_key is required with grant")) }
        guard let key = Base64URL.decode(callKey), key.count == CallSeal.keyBytes else {
            return .failure(.badField("call_key must be 32 bytes of base64url"))
        }
        guard let der = Base64URL.decode(deviceKey), let publicKey = try? JWTKey.publicKey(spkiDER: der),
            let checker = try? CallGrantChecker(deviceKey: publicKey, gatewayID: gatewayID, endpoint: endpoint)
        else { return .failure(.badField("device_key must be a P-256 public key (base64url SPKI DER)")) }
        if let bound, bound != deviceKey { return .failure(.grant(.otherDeviceKey)) }
        switch checker.check(grant, now: nowSeconds) {
        case .refused(let reason): return .failure(.grant(reason))
        case .valid(let expiresAt):
            return .success(PushSealing(deviceKey: deviceKey, grant: grant, callKey: key, grantExpiresAt: expiresAt))
        }
    }
}

/// Why the sealing of a registration is refused: a malformed field (400) or a grant the gateway
/// does not accept (403, reason in the answer and in `grants_refused_<reason>`).
public enum SealingRefusal: Error, Sendable, Hashable {
    case badField(String)
    case grant(CallGrantRefusal)
    /// `--sealed required` and no grant or call key.
    case required

    /// The counter and answer reason of a 403 (`grants_refused_<reason>`); nil for a 400.
    public var reason: String? {
        switch self {
        case .badField: nil
        case .grant(let refusal): refusal.rawValue
        case .required: "missing"
        }
    }
}

/// `--sealed`: whether pushes carry the caller sealed.
public enum SealedMode: String, Sendable, Hashable, CaseIterable {
    /// Every registration must bring a valid grant and call key; a push without one is not sent.
    case required
    /// A registration with a call key gets sealed pushes, one without gets clear ones (counted).
    case optional
    /// Sealing fields are ignored (not checked, not stored): every push is clear.
    case off
}
