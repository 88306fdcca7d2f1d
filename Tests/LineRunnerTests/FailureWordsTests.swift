import SIPCore
import SIPTransport
import Testing

@testable import LineRunner

/// Text mode's failures in words: built from the messages the tools really carry (a
/// `TransportError`'s description, the registration failures), each with the fix to try.
@Suite struct FailureWordsTests {
    let wss = try! LineSetup(
        line: Line(user: "1001", domain: "pbx.example", server: LineServer(host: "::1", port: 8443), transport: .wss))

    private func words(_ error: TransportError) -> String { FailureWords.explain(error.description, setup: wss) }

    @Test func transportMessagesNameTheFix() {
        let refused = TransportError(.connectFailed, transport: .tcp, peer: "127.0.0.1:5060", "connect(): Connection refused")
        #expect(
            words(refused) == "cannot connect to 127.0.0.1:5060 over WSS (connection refused): is the server running, "
                + "and is that its wss port? (--server HOST:PORT, --transport)")
        let untrusted = TransportError(.certificateVerificationFailed, "certificate verify failed (X509 error 19)")
        #expect(words(untrusted).hasPrefix("the server's certificate is not trusted (certificate verify failed"))
        #expect(words(untrusted).contains("pass --ca-file"))
        let upgrade = TransportError(.webSocketHandshakeFailed, transport: .wss, peer: "[::1]:8443", "status 404")
        #expect(words(upgrade) == "[::1]:8443 refused the WebSocket upgrade (status 404): check --ws-path (now /ws) and the port")
    }

    /// The real message of a certificate that does not verify: OpenSSL's reason once, the fix
    /// once, no code name, no X509 number.
    @Test func anUntrustedCertificateSaysTheFixOnce() {
        let untrusted = TransportError(
            .certificateVerificationFailed, transport: .wss, peer: "127.0.0.1:8089",
            "server certificate rejected: unable to get local issuer certificate (X509 error 20)")
        #expect(
            words(untrusted) == "the server's certificate is not trusted (unable to get local issuer certificate): "
                + "pass --ca-file with the CA that signed it (or ca_file in the line)")
        #expect(words(untrusted).ranges(of: "--ca-file").count == 1)
        let otherName = TransportError(
            .certificateVerificationFailed, transport: .wss, peer: "[::1]:8443",
            "server certificate rejected: hostname mismatch (X509 error 62)")
        #expect(words(otherName).hasPrefix("the server's certificate is not for ::1 (hostname mismatch): "))
        #expect(words(otherName).contains("tls_server_name") && !words(otherName).contains("--ca-file"))
    }

    @Test func anIPv6PeerKeepsItsPort() throws {
        let message = TransportError(.peerClosed, transport: .wss, peer: "[::1]:8443", "EOF: a]: b").description
        let (code, peer, detail) = try #require(FailureWords.transportParts(message))
        #expect(code == .peerClosed && peer == "[::1]:8443" && detail == "EOF: a]: b")
        #expect(FailureWords.transportParts("connectFailed: refused")?.1 == nil)
    }

    @Test func registrationFailures() {
        #expect(
            FailureWords.explain("credentials rejected: 401 Unauthorized", setup: wss)
                == "the registrar refused the credentials (401 Unauthorized): check the password (--password-file) "
                + "and the authentication user (--auth-user)")
        #expect(FailureWords.explain("registrar answered 404 Not Found", setup: wss).contains("does not know sip:1001@pbx.example"))
        #expect(FailureWords.explain("registrar answered 503 Service Unavailable", setup: wss).hasPrefix("the server failed"))
        #expect(FailureWords.explain("timeout after 5 s", setup: wss).contains("--server HOST:PORT and --transport"))
    }

    @Test func unknownMessagesComeBackAsTheyAre() {
        for message in ["", "something else", "connectFailedX: y", "closed", "notACode [TCP a:1]: z"] {
            #expect(FailureWords.explain(message, setup: wss) == message)
        }
    }
}
