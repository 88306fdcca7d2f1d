/// The app's half of the sealing: opening a blob (CryptoKit's `AES.GCM.open` on iOS). All a
/// client needs; a Swift client served over the client protocol is given one
/// (``ClientProtocolServer/init(name:sealing:_:)``).
public protocol SealOpener: Sendable {
    /// A short name for the `call_keys` message (`aes-256-gcm`, `symbolic`).
    var name: String { get }
    /// The plaintext, or nil when `blob` was not sealed under `key` for `callID` or changed since.
    func open(_ blob: [UInt8], key: [UInt8], callID: String) -> [UInt8]?
}

/// The sealing the emulator's gateway uses and the app opens with: injected, so PushKitEmu stays
/// free of a crypto library. astra-pushsim injects AES-256-GCM (the JWT module's `CallSeal`,
/// PushKitLive's `CallSealBox`) whenever a client process is judged, so a real client opens the
/// blobs it is sent with its own AES-GCM; in-process policies get ``SymbolicSealBox`` by default.
public protocol SealBox: SealOpener {
    /// `plaintext` sealed under `key` with `callID` as associated data, with the given nonce.
    func seal(_ plaintext: [UInt8], key: [UInt8], callID: String, nonce: [UInt8]) -> [UInt8]
    /// The opaque hash a push names its gateway by.
    func gatewayHash(key: [UInt8], gatewayID: String) -> String
}

/// A stand-in sealing for in-process runs without OpenSSL. **Not encryption**: a keyed
/// SplitMix64 stream and a 128-bit check over key, call ID, nonce and ciphertext, so that in
/// virtual time a changed byte, another call ID or another key fails to open exactly as with
/// AES-GCM. The keys it is used with are simulated ones; never use it for anything real.
/// Same layout and length as the gateway's blob: nonce (12) ‖ body (384) ‖ check (16).
public struct SymbolicSealBox: SealBox {
    public static let nonceBytes = 12
    public static let paddedBytes = 384
    public static let tagBytes = 16

    public init() {}

    public var name: String { "symbolic" }

    public func seal(_ plaintext: [UInt8], key: [UInt8], callID: String, nonce: [UInt8]) -> [UInt8] {
        var padded = Array(plaintext.prefix(Self.paddedBytes - 1))
        padded.append(0x80)
        padded += [UInt8](repeating: 0, count: Self.paddedBytes - padded.count)
        let iv = Array((nonce + [UInt8](repeating: 0, count: Self.nonceBytes)).prefix(Self.nonceBytes))
        let body = Self.stream(padded, key: key, nonce: iv)
        return iv + body + Self.check(key: key, callID: callID, nonce: iv, body: body)
    }

    public func open(_ blob: [UInt8], key: [UInt8], callID: String) -> [UInt8]? {
        guard blob.count == Self.nonceBytes + Self.paddedBytes + Self.tagBytes else { return nil }
        let iv = Array(blob.prefix(Self.nonceBytes))
        let body = Array(blob[Self.nonceBytes..<(Self.nonceBytes + Self.paddedBytes)])
        guard Array(blob.suffix(Self.tagBytes)) == Self.check(key: key, callID: callID, nonce: iv, body: body) else {
            return nil
        }
        let padded = Self.stream(body, key: key, nonce: iv)
        guard let end = padded.lastIndex(where: { $0 != 0 }), padded[end] == 0x80 else { return nil }
        return Array(padded[..<end])
    }

    public func gatewayHash(key: [UInt8], gatewayID: String) -> String {
        let words = Self.mix(key + Array(("astra-gateway-hash\u{0}" + gatewayID).utf8), count: 2)
        return words.map { Self.hex($0) }.joined()
    }

    static func stream(_ bytes: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var rng = SplitMix64(seed: mix(key + nonce, count: 1)[0])
        var out = bytes
        var word: UInt64 = 0
        for i in out.indices {
            if i % 8 == 0 { word = rng.next() }
            out[i] ^= UInt8(truncatingIfNeeded: word >> UInt64((i % 8) * 8))
        }
        return out
    }

    static func check(key: [UInt8], callID: String, nonce: [UInt8], body: [UInt8]) -> [UInt8] {
        let words = mix(key + [0xFF] + Array(callID.utf8) + [0xFF] + nonce + body, count: 2)
        return words.flatMap { w in (0..<8).map { UInt8(truncatingIfNeeded: w >> UInt64($0 * 8)) } }
    }

    /// `count` 64-bit words that depend on every byte of `bytes` (FNV-1a fed through SplitMix64).
    static func mix(_ bytes: [UInt8], count: Int) -> [UInt64] {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        var rng = SplitMix64(seed: h ^ UInt64(bytes.count))
        return (0..<count).map { _ in rng.next() }
    }

    static func hex(_ w: UInt64) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<16).map { digits[Int((w >> UInt64((15 - $0) * 4)) & 0xF)] })
    }
}
