import Provisioning
import SIPCore
import Testing

/// Sealed passwords (docs/provisioning.md "Sealed passwords"): scrypt/PBKDF2/HKDF + AES-256-GCM.
@Suite struct SealTests {
    let line = Line(user: "1001", password: "correct horse", domain: "example.com", transport: .wss)

    @Test(arguments: [SealKDF.scrypt(logN: 14, r: 8, p: 1), .pbkdf2SHA256(iterations: 20_000)])
    func passphraseRoundTrip(kdf: SealKDF) throws {
        let payload = try ProvisioningPayload.payload(for: line, seal: .passphrase("tr0ub4dor"), kdf: kdf)
        #expect(!payload.contains("correct horse"))
        #expect(payload.contains("x=$s1$"))
        let (opened, _) = try ProvisioningPayload.line(from: payload, key: .passphrase("tr0ub4dor"))
        #expect(opened == line)
        let (stillSealed, _) = try ProvisioningPayload.line(from: payload)
        #expect(stillSealed.password == nil && stillSealed.sealedPassword?.hasPrefix("$s1$") == true)
    }

    @Test func defaultIsScryptWithParametersInThePayload() throws {
        let payload = try ProvisioningPayload.payload(for: line, seal: .passphrase("pp"), random: Support.counting)
        #expect(payload.contains("$s1$scrypt$ln=15,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$AAECAwQFBgcICQoL$"))
    }

    @Test func keyFileUsesHKDF() throws {
        let key = SealKey.keyFile(Array(repeating: 7, count: 32))
        let payload = try ProvisioningPayload.payload(for: line, seal: key)
        #expect(payload.contains("$s1$hkdf-sha256$-$"))
        #expect(try ProvisioningPayload.line(from: payload, key: key).0.password == "correct horse")
        #expect(throws: ProvisioningError(.wrongPassphrase, "")) {
            try ProvisioningPayload.line(from: payload, key: .keyFile(Array(repeating: 8, count: 32)))
        }
    }

    @Test func wrongPassphraseIsAClearError() throws {
        let payload = try ProvisioningPayload.payload(
            for: line, seal: .passphrase("right"),
            kdf: .scrypt(logN: 12, r: 8, p: 1))
        #expect {
            try ProvisioningPayload.line(from: payload, key: .passphrase("wrong"))
        } throws: { error in
            let e = error as! ProvisioningError
            return e.code == .wrongPassphrase
                && e.description == "wrong passphrase or key, the sealed password did not open "
                    + "(AES-256-GCM authentication failed)"
        }
    }

    @Test func sealIsBoundToTheLineAndItsParameters() throws {
        let sealed = try PasswordSeal.seal(
            "pw", key: .passphrase("k"), kdf: .scrypt(logN: 12, r: 8, p: 1),
            context: "1001@example.com")
        #expect(try PasswordSeal.open(sealed, key: .passphrase("k"), context: "1001@example.com") == "pw")
        #expect(throws: ProvisioningError(.wrongPassphrase, "")) {
            try PasswordSeal.open(sealed, key: .passphrase("k"), context: "1002@example.com")
        }
        let altered = sealed.replacingOccurrences(of: "r=8", with: "r=9")
        #expect(throws: ProvisioningError(.wrongPassphrase, "")) {
            try PasswordSeal.open(altered, key: .passphrase("k"), context: "1001@example.com")
        }
    }

    @Test(arguments: [
        "$s1$scrypt$ln=15", "$s1$rot13$-$AA$AA$AA",
        "$s1$scrypt$ln=30,r=8,p=1$AAAAAAAAAAA$AAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA",
        "$s1$scrypt$ln=14,r=8,p=1$!!$AAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA",
    ])
    func malformedSealsAreBadSeal(text: String) {
        #expect(throws: ProvisioningError(.badSeal, "")) {
            try PasswordSeal.open(text, key: .passphrase("k"), context: "a@b")
        }
    }

    @Test func encodeWarnsOnlyForAClearPassword() throws {
        let clear = try EncodeCommand.run(line: line, options: .init())
        #expect(clear.warnings == [EncodeCommand.clearPasswordWarning])
        let sealed = try EncodeCommand.run(
            line: line,
            options: .init(
                seal: .passphrase("p"),
                kdf: .scrypt(logN: 12, r: 8, p: 1)))
        #expect(sealed.warnings.isEmpty)
        #expect(!sealed.payload.contains("correct horse"))
        let none = try EncodeCommand.run(line: Line(user: "1001", domain: "example.com"), options: .init())
        #expect(none.warnings.isEmpty)
    }
}
