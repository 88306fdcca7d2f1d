import Testing

@testable import SIPTransport

@Suite("--sip-trace formatting and redaction")
struct SIPTraceTests {
    @Test("Header line with time, direction, transport and addresses; credentials redacted")
    func format() {
        let message = Array(
            ("REGISTER sip:127.0.0.1 SIP/2.0\r\n"
                + "Authorization: Digest username=\"1001\", realm=\"127.0.0.1\", nonce=\"abc123\", uri=\"sip:127.0.0.1\",\r\n"
                + " response=\"0123456789abcdef\", cnonce=\"c0ffee\", nc=00000001, qop=auth\r\n"
                + "Proxy-Authorization: Digest username=\"1001\",response=deadbeef,opaque=\"x\"\r\n"
                + "Authentication-Info: rspauth=\"r1\", nextnonce=\"n2\"\r\n"
                + "Content-Type: application/sdp\r\n\r\n"
                + "v=0\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4\r\n")
                .utf8)
        let text = SIPTraceFormatter.format(
            direction: .sent, transport: .wss, local: SocketAddress(ip: "::1", port: 40000),
            remote: SocketAddress(ip: "127.0.0.1", port: 8089), timestamp: (1_764_486_301, 123_456_789),
            message: message)
        #expect(text.hasPrefix("----- 2025-11-30T07:05:01.123456Z SENT WSS [::1]:40000 -> 127.0.0.1:8089 ("))
        for secret in ["abc123", "0123456789abcdef", "c0ffee", "deadbeef", "r1\"", "n2\"", "WVNfX19z"] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        #expect(text.contains("username=\"1001\""))
        #expect(text.contains("response=\"<redacted>\""))
        #expect(text.contains("nc=00000001"))
        #expect(text.contains("inline:<redacted>|2^20|1:4"))
    }
}
