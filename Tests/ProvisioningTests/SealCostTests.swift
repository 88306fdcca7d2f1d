import Foundation
import Provisioning
import SIPCore
import Testing

/// Sealed codes cost what a phone can afford (docs/provisioning.md "Cost bounds"): an over-cost
/// code is refused before any derivation, at once; a sealed code carries no secret in clear.
@Suite struct SealCostTests {
    static let line = Line(user: "1001", password: "correct horse", domain: "example.com", transport: .wss)

    /// A code that once took 4.2 GB and > 130 s of CPU: inside the old bounds, outside the new.
    @Test(arguments: [
        "ln=20,r=32,p=16", "ln=20,r=1,p=1", "ln=18,r=8,p=1", "ln=15,r=8,p=5", "ln=16,r=8,p=3",
    ])
    func overCostScryptIsRefusedAtOnce(_ parameters: String) {
        let hostile = "$s1$scrypt$\(parameters)$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA"
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: ProvisioningError(.badSeal, "")) {
            try PasswordSeal.open(hostile, key: .passphrase("x"), context: "1001@example.com")
        }
        #expect(clock.now - start < .milliseconds(50))
    }

    @Test func overCostPBKDF2IsRefused() {
        let hostile = "$s1$pbkdf2-sha256$i=10000000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA"
        #expect(throws: ProvisioningError(.badSeal, "")) {
            try PasswordSeal.open(hostile, key: .passphrase("x"), context: "1001@example.com")
        }
    }

    @Test func theDefaultsAndTheBoundItselfAreAccepted() throws {
        for kdf in [SealKDF.scrypt(logN: 15, r: 8, p: 1), .scrypt(logN: 16, r: 8, p: 2), .pbkdf2SHA256(iterations: 600_000)] {
            let sealed = try PasswordSeal.seal("pw", key: .passphrase("k"), kdf: kdf, context: "a@b")
            #expect(try PasswordSeal.open(sealed, key: .passphrase("k"), context: "a@b") == "pw")
        }
        #expect(throws: ProvisioningError(.badSeal, "")) {
            try PasswordSeal.seal("pw", key: .passphrase("k"), kdf: .scrypt(logN: 17, r: 8, p: 1), context: "a@b")
        }
    }

    @Test func aSealedCodeRefusesAPushTokenInClear() throws {
        var line = Self.line
        line.pushProvider = "apns"
        line.pushToken = "8f3c9d2e7a4b1f6e"
        #expect(throws: ProvisioningError(.badOption, "")) {
            try EncodeCommand.run(line: line, options: EncodeCommand.Options(format: .png, seal: .passphrase("k")))
        }
        // Unsealed it is allowed (with the clear-password warning, as before).
        let plain = try EncodeCommand.run(line: line, options: EncodeCommand.Options(format: .png))
        #expect(plain.warnings == [EncodeCommand.clearPasswordWarning])
    }

    /// One image can hold many codes; the key opens at most `maxSealedOpens` per run.
    @Test func oneRunOpensABoundedNumberOfSealedCodes() throws {
        let payload = try ProvisioningPayload.payload(
            for: Self.line, seal: .passphrase("k"), kdf: .scrypt(logN: 10, r: 8, p: 1))
        let png = try QRRenderer.render(try QRMatrix.encode(payload), format: .png)
        var budget = DecodeCommand.maxSealedOpens
        var opened = 0
        for _ in 0..<(DecodeCommand.maxSealedOpens + 2) {
            let outcomes = try DecodeCommand.decode(
                imageBytes: png, options: DecodeCommand.Options(files: ["x"], key: .passphrase("k")),
                keyBudget: &budget)
            if case .line(let line, _) = outcomes.first, line.password != nil { opened += 1 }
        }
        #expect(opened == DecodeCommand.maxSealedOpens)
    }
}
