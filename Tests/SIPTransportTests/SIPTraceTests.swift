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
                + "Contact: <sip:1001@10.0.0.1;pn-provider=apns;pn-prid=0fc13adff785;pn-param=T.voip>\r\n"
                + "Content-Type: application/sdp\r\n\r\n"
                + "v=0\r\na=ice-ufrag:8hhY\r\na=ice-pwd:asd88fgpdd777uzjYhagZg\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4;"
                + "inline:QUJjZGVmMTIzNDU2Nzg5QUJDREUwMTIzNDU2Nzg5|2^20|2:4\r\n")
                .utf8)
        let text = SIPTraceFormatter.format(
            direction: .sent, transport: .wss, local: SocketAddress(ip: "::1", port: 40000),
            remote: SocketAddress(ip: "127.0.0.1", port: 8089), timestamp: (1_764_486_301, 123_456_789),
            message: message)
        #expect(text.hasPrefix("----- 2025-11-30T07:05:01.123456Z SENT WSS [::1]:40000 -> 127.0.0.1:8089 ("))
        // The values derived from the password go (RFC 7616 §3.4 response, §3.5 rspauth), every
        // SDES key, the ICE password and the push token; nonce, cnonce and opaque carry no secret and stay for debugging.
        for secret in ["0123456789abcdef", "deadbeef", "r1\"", "WVNfX19z", "QUJjZGVm", "asd88fgp", "0fc13adff785"] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        for kept in ["nonce=\"abc123\"", "cnonce=\"c0ffee\"", "opaque=\"x\"", "nextnonce=\"n2\""] {
            #expect(text.contains(kept), "\(kept) was lost")
        }
        #expect(text.contains("username=\"1001\""))
        #expect(text.contains("response=\"<redacted>\""))
        #expect(text.contains("response=<redacted>,opaque"))
        #expect(text.contains("nc=00000001"))
        #expect(text.contains("inline:<redacted>|2^20|1:4;inline:<redacted>|2^20|2:4"))
        #expect(text.contains("a=ice-ufrag:8hhY\r\na=ice-pwd:<redacted>\r\n"))
        #expect(text.contains(";pn-prid=<redacted>;pn-param=T.voip>"))
    }
}
