/// The one source of randomness that protects something: SRTP master keys (SDES, RFC 4568
/// §6.1), ICE passwords (RFC 8445 §5.3), digest client nonces (RFC 7616 §3.4), push ids (the
/// capability a phone acks with). Always the operating system's CSPRNG (`getrandom(2)`, the
/// source OpenSSL's `RAND_bytes` seeds itself from); there is no seeded form, so `--seed` and
/// test seeds can never make a key predictable (docs/decisions.md D3). Identifiers that only
/// need to be unique or repeatable come from an ``IdentifierSource``.
public enum KeyMaterial {
    private static let system = SystemIdentifierSource()

    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            var v = system.nextUInt64()
            for _ in 0..<8 {
                out.append(UInt8(truncatingIfNeeded: v))
                v >>= 8
            }
        }
        return Array(out.prefix(count))
    }

    /// A random alphanumeric string (ICE passwords, push ids): ~5.95 bits per character.
    public static func token(length: Int) -> String { system.token(length: length) }

    /// A digest client nonce (RFC 7616 §3.4): 128 bits as 32 lower-case hex digits.
    public static func cnonce() -> String { system.hex(system.nextUInt64()) + system.hex(system.nextUInt64()) }
}
