/// `a=crypto:<tag> <crypto-suite> inline:<key||salt>[|lifetime][|MKI:len] [session-params]`
/// (RFC 4568 §9.1, SDES key exchange for SRTP).
///
/// The key is never printed: ``description`` redacts it.
public struct CryptoAttribute: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var tag: Int
    /// The suite name as written (e.g. `AES_CM_128_HMAC_SHA1_80`).
    public var suiteName: String
    /// The master key concatenated with the master salt, decoded from base64.
    public var keyAndSalt: [UInt8]
    /// Anything after the key in the key-params (`|2^31|1:1`), kept verbatim.
    public var keyParameterSuffix: String
    /// Session parameters (e.g. `UNENCRYPTED_SRTCP`), kept verbatim.
    public var sessionParameters: [String]

    public init(tag: Int, profile: SRTPProfile, keyAndSalt: [UInt8]) {
        self.tag = tag
        self.suiteName = profile.sdesName
        self.keyAndSalt = keyAndSalt
        self.keyParameterSuffix = ""
        self.sessionParameters = []
    }

    /// The suite when we support it.
    public var profile: SRTPProfile? { SRTPProfile(sdesName: suiteName) }

    public init(parsing value: String) throws(MediaError) {
        let f = value.split(separator: " ").map(String.init)
        guard f.count >= 3, let tag = Int(f[0]), f[2].hasPrefix("inline:") else {
            throw MediaError(.badSDPField, "crypto attribute malformed")
        }
        let keyParam = f[2].dropFirst("inline:".count)
        let keyPart: Substring
        let suffix: String
        if let bar = keyParam.firstIndex(of: "|") {
            keyPart = keyParam[..<bar]
            suffix = String(keyParam[bar...])
        } else {
            keyPart = keyParam
            suffix = ""
        }
        guard let key = Base64.decode(String(keyPart)) else {
            throw MediaError(.badSDPField, "crypto key is not base64")
        }
        if let profile = SRTPProfile(sdesName: f[1]), key.count != profile.keyAndSaltLength {
            throw MediaError(.badSDPField, "crypto key length \(key.count) for \(f[1])")
        }
        self.tag = tag
        self.suiteName = f[1]
        self.keyAndSalt = key
        self.keyParameterSuffix = suffix
        self.sessionParameters = Array(f.dropFirst(3))
    }

    /// The attribute value, key included (for the wire only).
    public var value: String {
        ([String(tag), suiteName, "inline:" + Base64.encode(keyAndSalt) + keyParameterSuffix] + sessionParameters)
            .joined(separator: " ")
    }

    public var description: String { "crypto:\(tag) \(suiteName) inline:<redacted>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["tag": tag, "suite": suiteName, "key": "<redacted>"]) }
}

/// Minimal RFC 4648 base64 (standard alphabet, padding), to stay free of Foundation.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let v = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(v >> 18 & 63)])
            out.append(alphabet[Int(v >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(v >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(v & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for c in text.utf8 {
            if c == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, let index = alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt8(index))
        }
        guard (values.count + padding) % 4 == 0 || padding == 0, values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let n = min(4, values.count - i)
            var v: UInt32 = 0
            for j in 0..<4 { v = v << 6 | (j < n ? UInt32(values[i + j]) : 0) }
            out.append(UInt8(v >> 16 & 0xFF))
            if n > 2 { out.append(UInt8(v >> 8 & 0xFF)) }
            if n > 3 { out.append(UInt8(v & 0xFF)) }
            i += 4
        }
        return out
    }
}
