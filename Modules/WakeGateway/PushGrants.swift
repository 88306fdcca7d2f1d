import JWT
import SIPCore

/// The push-ids the gateway has handed out: the capability a phone's unauthenticated
/// `POST /voip-push-ack` presents (docs/push-wake-rules.md step 2, THREATS.md). Pure apart from the CSPRNG.
///
/// A push-id is `p` + 16 hex digits of *selector* + 32 hex digits of *verifier*, all from
/// `RAND_bytes` (64 + 128 bits), then `-` + the issuing gateway's id when it has one
/// (`--gateway-id`, one of several gateways): the id says which gateway holds the call, so the
/// one that receives the ack can forward it there (docs/wake-gateway.md "Two or more gateways"). The selector finds the grant in a dictionary (its timing may
/// leak, it protects nothing); the verifier is compared with `CRYPTO_memcmp`, so the lookup of a
/// guessed id takes the same time wherever it differs (the split-token pattern). A grant is
/// single use (the first ack redeems it), expires with the ack window, and is revoked when its
/// call ends; a guessed, replayed or late id is simply unknown (404) and releases nothing.
struct PushGrants: Sendable {
    struct Grant: Sendable {
        let call: Int32
        let verifier: [UInt8]
        let expiresMs: Int64
    }

    static let selectorBytes = 8
    static let verifierBytes = 16
    private(set) var grants: [String: Grant] = [:]
    /// This gateway's id, the suffix of the push-ids it issues; nil: no suffix (one gateway).
    let gatewayID: String?

    init(gatewayID: String? = nil) { self.gatewayID = gatewayID }

    var count: Int { grants.count }

    /// A fresh push-id for `call`, valid until `expiresMs` (gateway clock).
    mutating func issue(call: Int32, expiresMs: Int64) -> String {
        var selector = SecureBytes.hex(KeyMaterial.bytes(Self.selectorBytes))
        while grants[selector] != nil { selector = SecureBytes.hex(KeyMaterial.bytes(Self.selectorBytes)) }
        let verifier = KeyMaterial.bytes(Self.verifierBytes)
        grants[selector] = Grant(call: call, verifier: verifier, expiresMs: expiresMs)
        return "p" + selector + SecureBytes.hex(verifier) + (gatewayID.map { "-" + $0 } ?? "")
    }

    /// The call behind `pushID` when it is a live grant; the grant is used up. Expired grants
    /// met on the way are removed.
    mutating func redeem(_ pushID: String, nowMs: Int64) -> Int32? {
        guard Self.gateway(of: pushID) == gatewayID, let (selector, verifier) = Self.split(pushID),
            let grant = grants[selector]
        else { return nil }
        guard SecureBytes.equal(grant.verifier, verifier) else { return nil }
        grants[selector] = nil
        return grant.expiresMs > nowMs ? grant.call : nil
    }

    /// Revokes the grant of `pushID` (its call ended or failed over).
    mutating func revoke(_ pushID: String) {
        if let (selector, _) = Self.split(pushID) { grants[selector] = nil }
    }

    /// Drops every expired grant (called as calls end; bounded work per call).
    mutating func expire(nowMs: Int64) {
        grants = grants.filter { $0.value.expiresMs > nowMs }
    }

    /// The id as logs show it: the selector only (`p1a2b…`) — useless to ack with.
    static func redacted(_ pushID: String) -> String {
        guard let (selector, _) = split(pushID) else { return "p…" }
        return "p" + selector + "…" + (gateway(of: pushID).map { "-" + $0 } ?? "")
    }

    /// The id of the gateway that issued `pushID` (its suffix), nil when it has none or is not
    /// a push-id at all.
    static func gateway(of pushID: String) -> String? {
        let bytes = Array(pushID.utf8), length = 1 + 2 * (selectorBytes + verifierBytes)
        guard bytes.count > length + 1, bytes[length] == UInt8(ascii: "-") else { return nil }
        let id = String(decoding: bytes[(length + 1)...], as: UTF8.self)
        return GatewayID.isValid(id) ? id : nil
    }

    static func split(_ pushID: String) -> (String, [UInt8])? {
        let bytes = Array(pushID.utf8), length = 1 + 2 * (selectorBytes + verifierBytes)
        guard bytes.count == length || gateway(of: pushID) != nil, bytes.first == UInt8(ascii: "p") else { return nil }
        let body = String(decoding: bytes[1..<length], as: UTF8.self)
        let selector = String(body.prefix(2 * selectorBytes))
        guard SecureBytes.bytes(hex: selector) != nil, selector == selector.lowercased(),
            let verifier = SecureBytes.bytes(hex: body.dropFirst(2 * selectorBytes))
        else { return nil }
        return (selector, verifier)
    }
}

/// A gateway's id among several (`--gateway-id`): 1–16 lowercase letters, digits or `_`, so it
/// can end a push-id and name a peer without any escaping.
public enum GatewayID {
    public static func isValid<S: StringProtocol>(_ text: S) -> Bool {
        !text.isEmpty && text.utf8.count <= 16
            && text.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
    }
}
