import Provisioning
import SIPCore

/// Sealed passwords (docs/provisioning.md "Sealed passwords": `$s1$KDF$PARAMS$SALT$NONCE$DATA`,
/// AES-256-GCM via OpenSSL) opened with a key file and with a passphrase, as a hostile code
/// would reach them — its KDF and parameters come from the code itself. Seeds: codes sealed
/// with each KDF (cheapest allowed parameters), intact and with one field changed.
///
/// Invariants: a code sealed with a key opens with it to the same password; a code sealed for one
/// line never opens for another (the associated data binds `user@domain`); opening with a wrong
/// key never succeeds.
enum SealedCodeTarget {
    static let keyFile = SealKey.keyFile(Array(0..<32))
    static let passphrase = SealKey.passphrase("correct horse battery staple")
    static let context = "1001@example.com"

    static let target = FuzzTarget(
        name: "sealed-code",
        summary: "sealed-password parser, KDF parameters and AES-256-GCM open via OpenSSL (docs/provisioning.md)",
        maxLength: 1024, dictionary: "qr",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        let sealed = String(decoding: input.rest(), as: UTF8.self)
        let key = control & 1 == 0 ? keyFile : passphrase
        guard let password = try? PasswordSeal.open(sealed, key: key, context: context) else { return }
        // It opened: it must not open for another line, nor with the other key.
        invariant(
            (try? PasswordSeal.open(sealed, key: key, context: "1002@example.com")) == nil,
            "a sealed password opened for another line")
        let other = control & 1 == 0 ? passphrase : keyFile
        invariant(
            (try? PasswordSeal.open(sealed, key: other, context: context)) == nil,
            "a sealed password opened with the wrong key")
        _ = password
    }

    static func seeds() -> [[UInt8]] {
        var counter: UInt8 = 0
        let random: (Int) -> [UInt8] = { n in
            counter &+= 1
            return (0..<n).map { UInt8(truncatingIfNeeded: $0) &+ counter }
        }
        var seeds: [[UInt8]] = []
        let kdfs: [(SealKey, SealKDF, UInt8)] = [
            (keyFile, .hkdfSHA256, 0), (passphrase, .scrypt(logN: 10, r: 1, p: 1), 1),
            (passphrase, .pbkdf2SHA256(iterations: 10_000), 1), (keyFile, .scrypt(logN: 10, r: 8, p: 1), 0),
        ]
        for (key, kdf, control) in kdfs {
            guard
                let sealed = try? PasswordSeal.seal(
                    "pw-Secret-42", key: key, kdf: kdf, context: context, random: random)
            else {
                SeedFiles.fail("sealing a seed code with \(kdf) failed")
            }
            seeds.append([control] + Array(sealed.utf8))
            seeds.append([control ^ 1] + Array(sealed.utf8))
        }
        seeds.append([0] + Array("$s2$hkdf-sha256$-$AAAA$AAAA$AAAA".utf8))
        return seeds
    }
}
