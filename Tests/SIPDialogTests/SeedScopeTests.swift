import SIPCore
import Testing

@testable import SIPDialog

/// `--seed` makes the identifiers in a registration repeatable (Call-ID, tags, branches, CSeq)
/// but never the digest cnonce (RFC 7616 §3.4): it comes from the system CSPRNG.
@Suite struct SeedScopeTests {
    func answeredRegister(seed: UInt64) throws -> SIPRequest {
        var client = RegistrationClient(
            aor: try SIPURI(parsing: "sip:1001@astra.test"), registrar: try SIPURI(parsing: "sip:astra.test"),
            credentials: DigestCredentials(username: "1001", password: "secret1001"),
            settings: RegistrationSettings(), ids: SeededIdentifierSource(seed: seed))
        let binding = LocalBinding(transport: .udp, host: "127.0.0.1", port: 40123)
        let first = try #require(client.start(binding: binding).compactMap { if case .send(let r) = $0 { r } else { nil } }.first)
        let challenge = SIPResponse(
            to: first, statusCode: 401, toTag: "t1",
            headers: SIPHeaders([(.wwwAuthenticate, #"Digest realm="astra.test", nonce="n0nce", qop="auth""#)]))
        return try #require(client.receive(challenge).compactMap { if case .send(let r) = $0 { r } else { nil } }.first)
    }

    @Test func theSeedFixesIdentifiersButNotTheCnonce() throws {
        let a = try answeredRegister(seed: 42)
        let b = try answeredRegister(seed: 42)
        #expect(a.headers.callID == b.headers.callID)
        #expect(try a.headers.topVia()?.branch == b.headers.topVia()?.branch)
        #expect(try a.headers.from()?.tag == b.headers.from()?.tag)
        let cnonce = #/cnonce="([0-9a-f]{32})"/#
        let ca = try #require(a.headers[.authorization]?.firstMatch(of: cnonce)?.output.1)
        let cb = try #require(b.headers[.authorization]?.firstMatch(of: cnonce)?.output.1)
        #expect(ca != cb)
    }
}
