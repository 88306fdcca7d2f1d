import Capture
import Foundation
import SIPTransport

/// Messages and packets the capture tests share: a digest REGISTER flow over WSS (secrets
/// inside, to check they never leave), an INVITE with SDP over UDP and its RTP.
enum CaptureFixtures {
    static let phone = SocketAddress(ip: "127.0.0.1", port: 40_112)!
    static let proxy = SocketAddress(ip: "127.0.0.1", port: 8443)!
    static let phoneUDP = SocketAddress(ip: "127.0.0.1", port: 5062)!
    static let proxyUDP = SocketAddress(ip: "127.0.0.1", port: 5060)!
    static let phoneRTP = SocketAddress(ip: "127.0.0.1", port: 24_000)!
    static let peerRTP = SocketAddress(ip: "127.0.0.1", port: 24_002)!

    /// The digest response value that must never appear in an export.
    static let secretResponse = "6629fae49393a05397450978507c4ef1"
    static let secretSDES = "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"

    static func sip(_ text: String) -> [UInt8] { Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8) }

    static let register1 = sip(
        """
        REGISTER sip:127.0.0.1 SIP/2.0
        Via: SIP/2.0/WSS abc.invalid;branch=z9hG4bK-1;rport
        Max-Forwards: 70
        From: <sip:1001@127.0.0.1>;tag=a1
        To: <sip:1001@127.0.0.1>
        Call-ID: reg-1@astra
        CSeq: 1 REGISTER
        Contact: <sip:1001@abc.invalid;transport=ws>
        Expires: 300
        Content-Length: 0


        """)
    static let challenge = sip(
        """
        SIP/2.0 401 Unauthorized
        Via: SIP/2.0/WSS abc.invalid;branch=z9hG4bK-1;rport
        From: <sip:1001@127.0.0.1>;tag=a1
        To: <sip:1001@127.0.0.1>;tag=k1
        Call-ID: reg-1@astra
        CSeq: 1 REGISTER
        WWW-Authenticate: Digest realm="127.0.0.1", nonce="abc123", qop="auth"
        Content-Length: 0


        """)
    static let register2 = sip(
        """
        REGISTER sip:127.0.0.1 SIP/2.0
        Via: SIP/2.0/WSS abc.invalid;branch=z9hG4bK-2;rport
        Max-Forwards: 70
        From: <sip:1001@127.0.0.1>;tag=a1
        To: <sip:1001@127.0.0.1>
        Call-ID: reg-1@astra
        CSeq: 2 REGISTER
        Authorization: Digest username="1001", realm="127.0.0.1", nonce="abc123", uri="sip:127.0.0.1", \
        response="\(secretResponse)", qop=auth, nc=00000001, cnonce="c1"
        Contact: <sip:1001@abc.invalid;transport=ws>
        Expires: 300
        Content-Length: 0


        """)
    static let registered = sip(
        """
        SIP/2.0 200 OK
        Via: SIP/2.0/WSS abc.invalid;branch=z9hG4bK-2;rport
        From: <sip:1001@127.0.0.1>;tag=a1
        To: <sip:1001@127.0.0.1>;tag=k1
        Call-ID: reg-1@astra
        CSeq: 2 REGISTER
        Contact: <sip:1001@abc.invalid;transport=ws>;expires=300
        Content-Length: 0


        """)

    static let sdp =
        "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
        + "m=audio 24000 RTP/AVP 8 101\r\na=rtpmap:8 PCMA/8000\r\na=rtpmap:101 telephone-event/8000\r\n"
        + "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(secretSDES)\r\n"

    static var invite: [UInt8] {
        sip(
            """
            INVITE sip:1002@127.0.0.1 SIP/2.0
            Via: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bK-3;rport
            Max-Forwards: 70
            From: <sip:1001@127.0.0.1>;tag=a2
            To: <sip:1002@127.0.0.1>
            Call-ID: call-1@astra
            CSeq: 1 INVITE
            Contact: <sip:1001@127.0.0.1:5062>
            Content-Type: application/sdp
            Content-Length: \(sdp.utf8.count)


            """) + Array(sdp.utf8)
    }

    static let busy = sip(
        """
        SIP/2.0 486 Busy Here
        Via: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bK-3;rport
        From: <sip:1001@127.0.0.1>;tag=a2
        To: <sip:1002@127.0.0.1>;tag=b2
        Call-ID: call-1@astra
        CSeq: 1 INVITE
        Content-Length: 0


        """)

    static func time(_ ms: Int) -> CapturedPacket.Time {
        CapturedPacket.Time(seconds: 1_764_486_301 + ms / 1000, nanoseconds: (ms % 1000) * 1_000_000 + 123_000)
    }

    static func packet(
        _ ms: Int, _ direction: CapturedPacket.Direction, _ bytes: [UInt8], transport: TransportKind = .wss,
        content: CapturedPacket.Content = .sip
    ) -> CapturedPacket {
        let udp = transport == .udp
        let local = content == .sip ? (udp ? phoneUDP : phone) : phoneRTP
        let remote = content == .sip ? (udp ? proxyUDP : proxy) : peerRTP
        return CapturedPacket(
            time: time(ms), direction: direction, content: content, transport: transport, local: local, remote: remote,
            bytes: bytes)
    }

    /// An RTP packet: PCMA, 160 bytes of payload.
    static func rtp(sequence: UInt16, timestamp: UInt32, ssrc: UInt32 = 0x1234_5678) -> [UInt8] {
        var out: [UInt8] = [0x80, 8, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        for shift in [24, 16, 8, 0] { out.append(UInt8((timestamp >> UInt32(shift)) & 0xFF)) }
        for shift in [24, 16, 8, 0] { out.append(UInt8((ssrc >> UInt32(shift)) & 0xFF)) }
        return out + Array(repeating: 0xD5, count: 160)
    }

    /// A REGISTER flow over WSS, an INVITE (SDP) over UDP answered 486, and 10 RTP packets each way.
    static var call: [CapturedPacket] {
        var packets = [
            packet(0, .sent, register1), packet(4, .received, challenge), packet(6, .sent, register2),
            packet(9, .received, registered), packet(20, .sent, invite, transport: .udp),
        ]
        for i in 0..<10 {
            packets.append(packet(40 + 20 * i, .sent, rtp(sequence: UInt16(100 + i), timestamp: UInt32(160 * i)),
                                  transport: .udp, content: .rtp))
            packets.append(packet(41 + 20 * i, .received,
                                  rtp(sequence: UInt16(500 + i), timestamp: UInt32(160 * i), ssrc: 0x0BAD_CAFE),
                                  transport: .udp, content: .rtp))
        }
        packets.append(packet(300, .received, busy, transport: .udp))
        return packets
    }

    static func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "astra-capture-\(name)-\(UUID().uuidString)"
    }
}
