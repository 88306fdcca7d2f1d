import AstraJSON
import COpenSSL
import JWT
import SIPCore

/// Bearer tokens as the wake gateway's token API verifies them (``JWTVerifier``, RFC 7515,
/// RFC 7519, RFC 8725): byte 0 picks the mode and the key (HS256, ES256, RS256).
/// - mode 0: the rest is a token from a stranger;
/// - mode 1: the rest is a claims object, which we sign and verify (the claim checks);
/// - mode 2: as 1, then the byte at a position the input picks, inside the signed header or
///   payload, is changed.
/// The keys are made fresh in each process, so no stored input can carry a valid signature.
/// Seeds: claims of valid, expired, future, long-lived, audience and issuer tokens, and tokens
/// with `alg` none, an unknown algorithm, `crit` and a repeated member.
///
/// Invariants: a token we did not sign in this process never verifies, nor does one with a
/// changed signed byte; a verified token's claims keep the policy (exp within the skew, nbf and
/// iat not in the future, lifetime capped, issuer and audience as configured); an error's
/// detail never holds the token.
enum JWTTarget {
    static let now: Int64 = 1_700_000_000
    static let policy = JWTPolicy(issuer: "https://platform.example", audience: "astra-wakegw", clockSkewSeconds: 60)

    static let keys: [JWTKey] = {
        guard let hs = try? JWTKey.hmac(secret: randomBytes(32)),
            let es = try? JWTKey.privateKey(pem: privateKeyPEM("EC") { EVP_PKEY_CTX_set_group_name($0, "P-256") }),
            let rs = try? JWTKey.privateKey(pem: privateKeyPEM("RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, 2048) })
        else { fatalError("invariant broken: JWT keys could not be made") }
        return [hs, es, rs]
    }()
    static let verifier = JWTVerifier(keys: keys, policy: policy)

    static let target = FuzzTarget(
        name: "jwt",
        summary:
            "bearer JWT verification: strangers' tokens, signed claims, one changed signed byte (RFC 7519, RFC 8725)",
        maxLength: 9000, dictionary: "json",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        let signer = try? JWTSigner(key: keys[Int(control >> 2) % keys.count])
        switch control & 3 {
        case 0:
            let token = String(decoding: input.rest(), as: UTF8.self)
            let claims = try? verifier.verify(token, now: now)
            invariant(claims == nil, "a token this process never signed verified")
            checkError(token)
        default:
            let tamper = control & 3 != 1
            let position = tamper ? Int(input.uint16()) : 0
            let replacement = tamper ? input.byte() : 0
            guard let signer, case .object(let members)? = try? JSONValue.parse(input.rest()),
                let token = try? signer.sign(members)
            else { return }
            if !tamper {
                if let claims = try? verifier.verify(token, now: now) { checkPolicy(claims) }
                checkError(token)
            } else {
                var tampered = Array(token.utf8)
                let signed = tampered.lastIndex(of: UInt8(ascii: ".")) ?? 0
                guard signed > 0 else { return }
                let at = position % signed
                guard tampered[at] != replacement else { return }
                tampered[at] = replacement
                let changed = String(decoding: tampered, as: UTF8.self)
                invariant(
                    (try? verifier.verify(changed, now: now)) == nil, "a token with a changed signed byte verified")
            }
        }
    }

    static func checkPolicy(_ claims: JWTClaims) {
        let skew = policy.clockSkewSeconds
        invariant(now < claims.expiresAt + skew, "verified an expired token")
        invariant(claims.notBefore.map { $0 <= now + skew } ?? true, "verified a token before its nbf")
        if let iat = claims.issuedAt {
            invariant(
                iat <= now + skew && claims.expiresAt - iat <= policy.maxLifetimeSeconds, "verified a bad iat/lifetime")
        } else {
            invariant(claims.expiresAt - now <= policy.maxLifetimeSeconds + skew, "verified an over-long lifetime")
        }
        invariant(claims.issuer == policy.issuer, "verified a token of another issuer")
        invariant(claims.strings("aud").contains(policy.audience ?? ""), "verified a token for another audience")
    }

    /// The refusal of `token` names no part of it (errors are logged).
    static func checkError(_ token: String) {
        do {
            _ = try verifier.verify(token, now: now)
        } catch {
            let parts = token.split(separator: ".").filter { $0.count >= 12 }
            for part in parts { invariant(!error.description.contains(part), "a JWT error shows part of the token") }
        }
    }

    static func seeds() -> [[UInt8]] {
        let good =
            #"{"sub":"1002","iss":"https://platform.example","aud":["astra-wakegw","x"],"iat":1700000000,"exp":1700003600,"asterisk_endpoint":"1002","role":"user","org":"o1"}"#
        let claims = [
            good,
            #"{"iss":"https://platform.example","aud":"astra-wakegw","exp":1699999900}"#,
            #"{"iss":"https://platform.example","aud":"astra-wakegw","nbf":1700000500,"exp":1700003600}"#,
            #"{"iss":"https://platform.example","aud":"astra-wakegw","exp":1800000000}"#,
            #"{"iss":"https://evil.example","aud":"astra-wakegw","exp":1700003600}"#,
            #"{"iss":"https://platform.example","aud":"astra-wakegw","exp":1.7000036e9,"iat":-1}"#,
        ]
        var seeds: [[UInt8]] = []
        for (i, c) in claims.enumerated() {
            let key = UInt8(i % 3) << 2
            seeds.append([key | 1] + Array(c.utf8))
            seeds.append([key | 2, 0, UInt8(i * 7)] + [0x41] + Array(c.utf8))
        }
        func b64(_ s: String) -> String { Base64URL.encode(Array(s.utf8)) }
        let payload = b64(good)
        for header in [
            #"{"alg":"none","typ":"JWT"}"#, #"{"alg":"HS512"}"#, #"{"alg":"HS256","crit":["exp"]}"#,
            #"{"alg":"HS256","alg":"ES256"}"#, #"{"alg":"ES256","typ":"JWT"}"#, #"{"alg":"RS256"}"#,
        ] {
            seeds.append([0] + Array((b64(header) + "." + payload + ".c2lnbmF0dXJl").utf8))
        }
        if let signer = try? JWTSigner(key: keys[0]), case .object(let members)? = try? JSONValue.parse(good),
            let token = try? signer.sign(members)
        {
            seeds.append([0] + Array(token.utf8))  // signed by another process's key: must not verify
        }
        return seeds
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&out, Int32(count)) == 1 else { fatalError("invariant broken: RAND_bytes failed") }
        return out
    }

    /// A fresh private key of `type` as PEM (OpenSSL EVP keygen, as DTLSCertificate does).
    static func privateKeyPEM(_ type: String, _ configure: (OpaquePointer) -> Int32) -> [UInt8] {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { return [] }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, configure(ctx) > 0, EVP_PKEY_generate(ctx, &pkey) == 1, let pkey else {
            return []
        }
        defer { EVP_PKEY_free(pkey) }
        guard let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1 else { return [] }
        var pem = [UInt8](repeating: 0, count: Int(astra_BIO_ctrl_pending(bio)))
        let n = pem.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        return Array(pem.prefix(Int(max(0, n))))
    }
}
