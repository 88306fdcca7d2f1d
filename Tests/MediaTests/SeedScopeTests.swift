import SIPCore
import Testing

@testable import Media

/// `--seed` fixes identifiers, never keys (docs/decisions.md D3): SRTP master keys and ICE
/// passwords come from the system CSPRNG even when everything else is seeded.
@Suite struct SeedScopeTests {
    @Test func srtpKeysAreNeverRepeatable() {
        let keys = (0..<4).map { _ in SRTPKeyMaterial.random(.aesCM128HmacSHA1_80).keyAndSalt }
        #expect(Set(keys).count == 4)
        #expect(keys.allSatisfy { $0.count == 30 })
    }

    @Test func iceCredentialsIgnoreTheSeed() throws {
        var w = WebRTCConfiguration()
        w.hostAddresses = ["127.0.0.1"]
        let local = UDPSocket.Address(host: "127.0.0.1", port: 30000)
        let a = try WebRTCTransport(configuration: w, local: local, ids: SeededIdentifierSource(seed: 7))
        let b = try WebRTCTransport(configuration: w, local: local, ids: SeededIdentifierSource(seed: 7))
        #expect(a.ice.localCredentials.pwd != b.ice.localCredentials.pwd)
        #expect(a.ice.localCredentials.pwd.utf8.count == 24)
    }
}
