import AstraTestSupport
import Foundation
import Testing

/// scripts/check-test-secrets.sh, the last step of `make test`: it must find a planted secret of
/// every kind (without printing it) and pass the redacted forms.
@Suite struct SecretCheckTests {
    static let script = RepositoryRoot.appending("scripts/check-test-secrets.sh")

    func check(_ text: String) async throws -> ChildProcess.Result {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("astra-log-\(UInt32.random(in: 0...UInt32.max))")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [Self.script.path, file.path])
    }

    /// A planted line, printed by Swift Testing as its kind only (the log this very check reads
    /// must not show the secret).
    struct Planted: CustomTestStringConvertible, Sendable {
        let kind: String
        let line: String
        var testDescription: String { kind }
    }

    static let planted = [
        Planted(kind: "Kamailio test password", line: "REGISTER with password astra" + "1042 in a failure message"),
        Planted(kind: "SDES key", line: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:" + "/aaI7YqopJ9L7As3U+SGn7TKWAGG3SbDPzxB2C5g"),
        Planted(kind: "ICE password", line: "a=ice-pwd:" + "Zo4myR1LuE5NVXPXDAF716nu"),
        Planted(kind: "digest response", line: #"Authorization: Digest username="1001", response=""# + "91c99a19cbbe8efa471c4325efee473d\""),
        Planted(kind: "push token", line: "Contact: <sip:1003@127.0.0.1;pn-prid=" + "8f3c9d2e7a4b1f6e0d5c8b3a2f9e4d1c>"),
        Planted(kind: "bearer token", line: "Authorization: Bearer " + "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnMg"),
    ]

    @Test(arguments: planted)
    func findsAPlantedSecret(_ planted: Planted) async throws {
        let result = try await check("ok line\n\(planted.line)\nanother\n")
        #expect(result.status == 1, "\(planted.kind): \(result.stderr)")
        #expect(result.stderr.contains(":2: "))
        let secret = String(planted.line.split(separator: " ").last ?? "")
        #expect(!result.stderr.contains(secret), "the check printed the secret")
    }

    @Test func passesRedactedOutput() async throws {
        let result = try await check(
            """
            a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<redacted>|2^20
            a=ice-pwd:<redacted>
            Authorization: Digest username="1001", response="<redacted>"
            Contact: <sip:1003@127.0.0.1;pn-prid=<redacted>>
            first response=12ms, user 1001, Bearer <redacted>

            """)
        #expect(result.status == 0, "\(result.stderr)")
    }
}
