/// An APNs device token (32 bytes) that never prints in clear.
///
/// Every `description`, JSON rendering and log line shows only ``redacted``: a fixed prefix and a
/// 32-bit FNV-1a fingerprint, enough to tell two tokens apart in a timeline and useless to push
/// with. docs/push-wake-rules.md: the status endpoint "never returns the raw token"; TOOLS.md: push tokens
/// are redacted in every output.
public struct PushToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The 256 token bits, four words.
    let words: (UInt64, UInt64, UInt64, UInt64)

    /// A token from four random words (tests and the PushKit registry model).
    public init(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) { words = (a, b, c, d) }

    /// A fresh random token.
    public init<G: RandomNumberGenerator>(using generator: inout G) {
        words = (generator.next(), generator.next(), generator.next(), generator.next())
    }

    public static func == (lhs: PushToken, rhs: PushToken) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    /// A 32-bit FNV-1a fingerprint of the token bytes (not reversible to the token).
    public var fingerprint: UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for word in [words.0, words.1, words.2, words.3] {
            var w = word
            for _ in 0..<8 {
                hash = (hash ^ UInt32(w & 0xFF)) &* 0x0100_0193
                w >>= 8
            }
        }
        return hash
    }

    /// The only printable form: `redacted:` and the fingerprint in hex.
    public var redacted: String {
        let hex = String(fingerprint, radix: 16)
        return "redacted:" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// The raw 64 hex digits, for an APNs HTTP/2 path only. Never log this.
    package var rawHexForAPNsRequestOnly: String {
        [words.0, words.1, words.2, words.3].map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    public var description: String { redacted }
    public var debugDescription: String { "PushToken(\(redacted))" }
}
