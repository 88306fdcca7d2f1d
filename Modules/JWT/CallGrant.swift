import AstraJSON
import SIPCore

/// A call grant: the phone's signed, expiring authorisation for one gateway to ring it — a
/// compact JWS (RFC 7515 §7.1) signed ES256 (RFC 7518 §3.4) with the device key the endpoint's
/// first registration bound to it. Header `{"alg":"ES256","typ":"JWT","kid":<device key id>}`
/// (the id is ``JWTKey/spkiThumbprint()``); claims `{"aud":<gateway id>,"sub":<endpoint>,
/// "iat","exp"}`, `exp − iat` at most 15 days (the phone asks 14 and renews below 7).
/// docs/adr/0151-call-grants.md.
///
/// ``check(_:now:)`` is pure apart from OpenSSL's deterministic verify: the time is a parameter.
/// Order (RFC 8725 §3): the algorithm before any crypto, the key id, the signature, and only then
/// the claims of a token that verified.
public struct CallGrantChecker: Sendable {
    public static let maxLifetimeSeconds: Int64 = 15 * 86_400
    public static let skewSeconds: Int64 = 60

    public let gatewayID: String
    /// The endpoint the grant must name in `sub`: the one registering. A device key may be bound
    /// to several endpoints (one phone, two lines), and a grant for one of them must not let a
    /// gateway ring the phone as another.
    public let endpoint: String
    let deviceKey: JWTKey
    let deviceKeyID: String

    /// A checker for grants of the device key `deviceKey` (P-256 public key) to `gatewayID`,
    /// for the endpoint `endpoint`.
    public init(deviceKey: JWTKey, gatewayID: String, endpoint: String) throws(JWTError) {
        guard deviceKey.algorithm == .es256 else { throw JWTError(.badKey, "a device key must be EC P-256") }
        self.deviceKey = deviceKey
        self.deviceKeyID = try deviceKey.spkiThumbprint()
        self.gatewayID = gatewayID
        self.endpoint = endpoint
    }

    /// `.valid(expiresAt:)` or the typed reason it is refused.
    public func check(_ grant: String, now: Int64) -> CallGrantVerdict {
        let bytes = Array(grant.utf8)
        guard bytes.count <= JWTVerifier.maxTokenBytes else { return .refused(.malformed) }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(JWTVerifier.isBase64URL) }),
            let header = try? JWTVerifier.object(parts[0], "header")
        else { return .refused(.malformed) }
        guard case .string("ES256")? = header["alg"] else { return .refused(.algNotES256) }
        if header["crit"] != nil { return .refused(.malformed) }
        guard case .string(let kid)? = header["kid"], kid == deviceKeyID else { return .refused(.otherDeviceKey) }
        guard let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)),
            JWTVerifier.check(signature, over: Array(bytes[0..<(parts[0].count + 1 + parts[1].count)]), with: deviceKey)
        else { return .refused(.badSignature) }
        guard let claims = try? JWTVerifier.object(parts[1], "claims"),
            let exp = try? JWTVerifier.numericDate(claims, "exp"), let iat = try? JWTVerifier.numericDate(claims, "iat")
        else { return .refused(.malformed) }
        guard JWTClaims.string(claims["aud"]) == gatewayID else { return .refused(.otherGateway) }
        guard JWTClaims.string(claims["sub"]) == endpoint else { return .refused(.otherEndpoint) }
        guard exp - iat <= Self.maxLifetimeSeconds else { return .refused(.tooLong) }
        guard now < exp + Self.skewSeconds else { return .refused(.expired) }
        guard iat <= now + Self.skewSeconds else { return .refused(.notYetValid) }
        return .valid(expiresAt: exp)
    }

    /// A grant signed with the private device key `deviceKey` (the phone's side; tests, the
    /// phone model). The gateway never mints grants.
    public static func mint(
        deviceKey: JWTKey, gatewayID: String, endpoint: String, issuedAt: Int64, expiresAt: Int64
    ) throws(JWTError) -> String {
        let signer = try JWTSigner(key: deviceKey.identified(as: try deviceKey.spkiThumbprint()))
        return try signer.sign([
            "aud": .string(gatewayID), "sub": .string(endpoint), "iat": .int(issuedAt), "exp": .int(expiresAt),
        ])
    }
}

/// A grant's verdict.
public enum CallGrantVerdict: Sendable, Hashable {
    case valid(expiresAt: Int64)
    case refused(CallGrantRefusal)

    /// The refusal, or nil for a valid grant.
    public var refusal: CallGrantRefusal? {
        if case .refused(let reason) = self { reason } else { nil }
    }
}

/// Why a grant was refused: the `grant` reason of the token API's 403 and the key of the
/// `grants_refused_<reason>` counter in `stats`.
public enum CallGrantRefusal: String, Sendable, Hashable, CaseIterable {
    /// `exp` passed, beyond the 60 s skew.
    case expired
    /// `exp − iat` over 15 days.
    case tooLong = "too_long"
    /// `aud` names another gateway.
    case otherGateway = "other_gateway"
    /// `sub` names another endpoint than the one registering (or none).
    case otherEndpoint = "other_endpoint"
    /// The header's `kid` is not the endpoint's device key (signed by another device).
    case otherDeviceKey = "other_device_key"
    case badSignature = "bad_signature"
    /// `alg` other than ES256 (`none`, HS256, RS256, …), refused before any crypto.
    case algNotES256 = "alg_not_es256"
    /// `iat` in the future beyond the skew.
    case notYetValid = "not_yet_valid"
    /// Not a compact JWS with JSON objects, `crit`, or `exp`/`iat` missing.
    case malformed
}
