import CLinux
#if canImport(Glibc)
    import Glibc
#endif
import Synchronization

/// The source of the identifiers SIP and RTP need: Call-ID, tags, branches (RFC 3261 §8.1.1.7),
/// CSeq start, SSRC, ports, timer jitter.
///
/// Injected so that tests and tools with `--seed` produce byte-stable messages; production code
/// uses ``SystemIdentifierSource``. Nothing that protects anything comes from here: SRTP
/// master keys, ICE passwords, digest cnonces and push ids come from ``KeyMaterial`` (the
/// system CSPRNG), so a seed can never make them predictable.
public protocol IdentifierSource: Sendable {
    /// The next 64 random bits.
    func nextUInt64() -> UInt64
}

/// The characters of RFC 3261 `token` that are safe everywhere (tags, branches, Call-IDs, ICE).
private let tokenAlphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)

extension IdentifierSource {
    /// A random alphanumeric token of `length` characters.
    public func token(length: Int) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(length)
        var bits: UInt64 = 0
        var available = 0
        while bytes.count < length {
            if available < 6 {
                bits = nextUInt64()
                available = 64
            }
            let index = Int(bits & 63)
            bits >>= 6
            available -= 6
            if index < tokenAlphabet.count { bytes.append(tokenAlphabet[index]) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A Via branch with the RFC 3261 §8.1.1.7 magic cookie `z9hG4bK`.
    public func branch() -> String { "z9hG4bK" + token(length: 16) }

    /// A From/To tag (RFC 3261 §19.3: at least 32 bits of randomness; we use ~59).
    public func tag() -> String { token(length: 10) }

    /// A Call-ID (RFC 3261 §8.1.1.4): globally unique; `host` is appended when given.
    public func callID(host: String? = nil) -> String {
        let local = token(length: 22)
        guard let host, !host.isEmpty else { return local }
        return local + "@" + host
    }

    /// An initial CSeq number: RFC 3261 §8.1.1.5 requires it to be below 2**31.
    public func initialCSeq() -> UInt32 { UInt32(truncatingIfNeeded: nextUInt64() & 0x7FFF) + 1 }

    /// A 32-bit value (RTP SSRC, RFC 3550 §8).
    public func nextUInt32() -> UInt32 { UInt32(truncatingIfNeeded: nextUInt64() >> 32) }

    func hex(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { out in
            var v = value
            for i in stride(from: 15, through: 0, by: -1) {
                let nibble = UInt8(truncatingIfNeeded: v & 0xF)
                out[i] = nibble < 10 ? 48 + nibble : 87 + nibble
                v >>= 4
            }
            return 16
        }
    }
}

/// Cryptographically secure identifiers from the operating system's CSPRNG (`getrandom(2)`),
/// drawn 512 bytes at a time so a branch or a cnonce costs no system call (a `getrandom(2)` per
/// 8 bytes was ~15 system calls per registration in load mode). Not OpenSSL's `RAND_bytes`:
/// its DRBG seeds itself from the same source, and instantiating it (provider and AES fetches)
/// cost 8.1 M instructions, 37 % of a one-shot registration (docs/decisions.md D3).
public struct SystemIdentifierSource: IdentifierSource {
    private let pool = RandomPool()
    public init() {}
    public func nextUInt64() -> UInt64 { pool.next() }
}

/// A refillable buffer of random 64-bit words, safe to share between threads.
private final class RandomPool: Sendable {
    private struct State: Sendable {
        var words: [UInt64] = []
        var index = 0
    }

    private let state = Mutex(State())

    func next() -> UInt64 {
        state.withLock { s in
            if s.index == s.words.count {
                var words = [UInt64](repeating: 0, count: 64)
                let filled = words.withUnsafeMutableBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        // Blocks only until the kernel's pool is initialised (at boot); a
                        // signal may interrupt it (EINTR), a request over 256 bytes may return short.
                        let n = astra_getrandom(buffer.baseAddress! + offset, UInt(buffer.count - offset), 0)
                        if n < 0 {
                            if errno == EINTR { continue }
                            return false
                        }
                        offset += n
                    }
                    return true
                }
                if !filled {
                    // The stdlib's generator is the same kernel source through another door.
                    var system = SystemRandomNumberGenerator()
                    for i in words.indices { words[i] = system.next() }
                }
                s.words = words
                s.index = 0
            }
            defer { s.index += 1 }
            return s.words[s.index]
        }
    }
}

/// A deterministic source (SplitMix64) for tests and `--seed`: the same seed gives the same IDs.
public final class SeededIdentifierSource: IdentifierSource {
    private let state: Mutex<UInt64>

    public init(seed: UInt64) { state = Mutex(seed) }

    public func nextUInt64() -> UInt64 {
        state.withLock { s in
            s &+= 0x9E37_79B9_7F4A_7C15
            var z = s
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
