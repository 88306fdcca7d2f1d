import SIPCore

/// SRTP crypto suites we negotiate with SDES (RFC 4568 §6.2) and their key sizes.
public enum SRTPProfile: String, Sendable, Hashable, CaseIterable {
    /// RFC 4568 §6.2.1: AES-128 counter mode, HMAC-SHA1 80-bit tag (SRTCP tag 80 bits).
    case aesCM128HmacSHA1_80
    /// RFC 4568 §6.2.2: as above with a 32-bit SRTP tag (SRTCP keeps 80 bits).
    case aesCM128HmacSHA1_32
    /// RFC 7714 §14.2: AEAD AES-128-GCM, 16-octet tag, 12-octet salt.
    case aeadAES128GCM

    /// The SDES suite name.
    public var sdesName: String {
        switch self {
        case .aesCM128HmacSHA1_80: "AES_CM_128_HMAC_SHA1_80"
        case .aesCM128HmacSHA1_32: "AES_CM_128_HMAC_SHA1_32"
        case .aeadAES128GCM: "AEAD_AES_128_GCM"
        }
    }

    public init?(sdesName: String) {
        guard let p = Self.allCases.first(where: { $0.sdesName == sdesName }) else { return nil }
        self = p
    }

    /// Master key plus master salt, in octets (30 for AES-CM, 28 for GCM).
    public var keyAndSaltLength: Int { self == .aeadAES128GCM ? 28 : 30 }

    /// Bytes an SRTP packet grows by (the RTP auth or AEAD tag).
    public var rtpOverhead: Int {
        switch self {
        case .aesCM128HmacSHA1_80: 10
        case .aesCM128HmacSHA1_32: 4
        case .aeadAES128GCM: 16
        }
    }
}

/// A master key and salt for one direction. Never printed: ``description`` is redacted.
public struct SRTPKeyMaterial: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public let profile: SRTPProfile
    public let keyAndSalt: [UInt8]

    public init(profile: SRTPProfile, keyAndSalt: [UInt8]) throws(MediaError) {
        guard keyAndSalt.count == profile.keyAndSaltLength else {
            throw MediaError(
                .srtpSetupFailed,
                "\(profile.sdesName) needs \(profile.keyAndSaltLength) key octets, got \(keyAndSalt.count)")
        }
        self.profile = profile
        self.keyAndSalt = keyAndSalt
    }

    /// Fresh master key and salt from the system CSPRNG (`KeyMaterial`): never from a seed,
    /// so `--seed` cannot make an SDES key predictable (RFC 4568 §6.1, RFC 3711 §8.2).
    public static func random(_ profile: SRTPProfile) -> SRTPKeyMaterial {
        // Length is right by construction.
        try! SRTPKeyMaterial(profile: profile, keyAndSalt: KeyMaterial.bytes(profile.keyAndSaltLength))
    }

    /// As an SDES `a=crypto` attribute with `tag`.
    public func cryptoAttribute(tag: Int) -> CryptoAttribute {
        CryptoAttribute(tag: tag, profile: profile, keyAndSalt: keyAndSalt)
    }

    public var description: String { "SRTPKeyMaterial(\(profile.sdesName), <redacted>)" }
    public var debugDescription: String { description }
    /// `dump()` and mirrors show the profile only.
    public var customMirror: Mirror { Mirror(self, children: ["profile": profile, "keyAndSalt": "<redacted>"]) }
}
