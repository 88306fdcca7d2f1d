/// The digest computations of RFC 7616 §3.4.1–§3.4.4 (= RFC 2617 §3.2.2, RFC 3261 §22.4),
/// streamed through ``DigestHasher`` so no `A1`/`A2` strings are built. Internal: callers use
/// ``DigestAuthorization``. HA1 values live only in locals, except H(username:realm:password), which
/// ``DigestClientState`` keeps beside the credentials it derives from (never described or
/// mirrored) so that a second answer to the same challenge does not hash the password again.
enum DigestMath {
    /// HA1 = H(username:realm:password); `-sess`: H(H(username:realm:password):nonce:cnonce).
    static func ha1(
        _ algorithm: DigestAlgorithm, username: String, realm: String, password: String,
        nonce: String, cnonce: String
    ) throws(DigestError) -> String {
        let base = try baseHA1(algorithm.hash, username: username, realm: realm, password: password)
        return try ha1(algorithm, base: base, nonce: nonce, cnonce: cnonce)
    }

    /// H(username:realm:password): A1 of the non-session algorithms, the base of the `-sess` ones.
    static func baseHA1(_ hash: DigestHash, username: String, realm: String, password: String)
        throws(DigestError) -> String
    {
        var hasher = try DigestHasher(hash)
        hasher.update(field: username)
        hasher.update(field: realm)
        hasher.update(password)
        return try hasher.finalizeHex()
    }

    /// HA1 from its base (RFC 7616 §3.4.2: `-sess` hashes it again with the nonces).
    static func ha1(_ algorithm: DigestAlgorithm, base: String, nonce: String, cnonce: String)
        throws(DigestError) -> String
    {
        guard algorithm.isSession else { return base }
        var session = try DigestHasher(algorithm.hash)
        session.update(field: base)
        session.update(field: nonce)
        session.update(cnonce)
        return try session.finalizeHex()
    }

    /// HA2 = H(method:uri); `auth-int`: H(method:uri:H(entity-body)) (RFC 7616 §3.4.3).
    static func ha2(_ hash: DigestHash, method: String, uri: String, qop: DigestQoP?, body: [UInt8])
        throws(DigestError) -> String
    {
        var hasher = try DigestHasher(hash)
        hasher.update(field: method)
        if qop == .authInt {
            hasher.update(field: uri)
            hasher.update(try hash.hex(body))
        } else {
            hasher.update(uri)
        }
        return try hasher.finalizeHex()
    }

    /// response = H(HA1:nonce:nc:cnonce:qop:HA2), or H(HA1:nonce:HA2) without qop (RFC 2069).
    static func response(
        _ hash: DigestHash, ha1: String, nonce: String, nonceCount: String, cnonce: String,
        qop: DigestQoP?, ha2: String
    ) throws(DigestError) -> String {
        var hasher = try DigestHasher(hash)
        hasher.update(field: ha1)
        hasher.update(field: nonce)
        if let qop {
            hasher.update(field: nonceCount)
            hasher.update(field: cnonce)
            hasher.update(field: qop.token)
        }
        hasher.update(ha2)
        return try hasher.finalizeHex()
    }

    /// The `userhash=true` username: H(username:realm) (RFC 7616 §3.4.4).
    static func userhash(_ hash: DigestHash, username: String, realm: String) throws(DigestError) -> String {
        var hasher = try DigestHasher(hash)
        hasher.update(field: username)
        hasher.update(realm)
        return try hasher.finalizeHex()
    }

    /// `nc`: exactly 8 lower-case hex digits (RFC 7616 §3.4).
    static func nonceCountHex(_ value: UInt32) -> String {
        String(unsafeUninitializedCapacity: 8) { out in
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { hex in
                for i in 0..<8 { out[i] = hex[Int((value >> UInt32(28 - 4 * i)) & 0xF)] }
            }
            return 8
        }
    }

    /// Parses an `nc` value: 8 hex digits (RFC 7616 §3.4 `8LHEX`; upper case tolerated).
    static func parseNonceCount(_ text: String) -> UInt32? {
        guard text.utf8.count == 8, text.utf8.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit })
        else { return nil }
        return UInt32(text, radix: 16)
    }

    /// Constant-time equality of two hex strings (server-side verification).
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.lowercased().utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}
