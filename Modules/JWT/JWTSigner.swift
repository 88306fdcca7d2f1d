import AstraJSON
import SIPCore

/// Mints compact JWS tokens (RFC 7515 §7.1) with an HMAC secret or a private key: the dev key of
/// the wake gateway's tests and live runs, and later APNs/FCM provider tokens (ES256/RS256).
public struct JWTSigner: Sendable {
    public let key: JWTKey
    /// Extra header parameters after `alg`, `typ` and the key's `kid` (when it has one).
    public var headerExtras: JSONObject

    public init(key: JWTKey, headerExtras: JSONObject = [:]) throws(JWTError) {
        guard key.canSign else { throw JWTError(.badKey, "a public key cannot sign") }
        self.key = key
        self.headerExtras = headerExtras
    }

    /// `claims` (a JSON object, members in order) signed with the key's algorithm.
    public func sign(_ claims: JSONObject) throws(JWTError) -> String {
        var header: JSONObject = ["alg": .string(key.algorithm.rawValue), "typ": "JWT"]
        if let kid = key.keyID, headerExtras["kid"] == nil { header["kid"] = .string(kid) }
        header.entries += headerExtras.entries
        let input =
            Base64URL.encode(Array(header.jsonText.utf8)) + "."
            + Base64URL.encode(Array(claims.jsonText.utf8))
        let data = Array(input.utf8)
        let signature: [UInt8]
        switch (key.algorithm, key.material) {
        case (.hs256, .secret(let secret)):
            signature = JWTCrypto.hmacSHA256(key: secret, data: data)
        case (.es256, .pkey(let pkey)):
            guard let der = JWTCrypto.sign(pkey, data: data), let raw = JWTCrypto.rawP256Signature(der: der) else {
                throw JWTError(.crypto, "ES256 signing failed")
            }
            signature = raw
        case (.rs256, .pkey(let pkey)):
            guard let raw = JWTCrypto.sign(pkey, data: data) else { throw JWTError(.crypto, "RS256 signing failed") }
            signature = raw
        default:
            throw JWTError(.badKey, "key material does not match \(key.algorithm.rawValue)")
        }
        return input + "." + Base64URL.encode(signature)
    }
}
