import SIPCore
import Testing

@testable import SIPDialog

/// Golden messages (seeded IDs, byte-exact): what the caller sends for INVITE, CANCEL, ACK and
/// BYE through a Kamailio-style double Record-Route, and what the callee answers.
@Suite struct InviteGoldenTests {
    static let invite =
        "INVITE sip:1002@astra.test SIP/2.0\r\n"
        + "Via: SIP/2.0/WSS df7jal23ls0d.invalid;rport;branch=z9hG4bKgSnG8OFme5D12nfX\r\n"
        + "Max-Forwards: 70\r\n"
        + "From: \"Alice\" <sip:1001@astra.test>;tag=uoUso8F4CG\r\n"
        + "To: <sip:1002@astra.test>\r\n"
        + "Call-ID: v626VyImx3deVzYoZ4VJs9\r\n"
        + "CSeq: 9203 INVITE\r\n"
        + "Contact: <sip:1001@df7jal23ls0d.invalid;transport=ws>\r\n"
        + "Allow: INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE\r\n"
        + "Supported: timer\r\n"
        + "User-Agent: \(AstraVersion.product())\r\n"
        + "Content-Length: 105\r\n"
        + "Content-Type: application/sdp\r\n"
        + "\r\n"
        + "v=0\r\n"
        + "o=alice 1 1 IN IP4 192.0.2.10\r\n"
        + "s=-\r\n"
        + "c=IN IP4 192.0.2.10\r\n"
        + "t=0 0\r\n"
        + "m=audio 4000 RTP/AVP 0\r\n"
        + "a=sendrecv\r\n"

    static let cancel =
        "CANCEL sip:1002@astra.test SIP/2.0\r\n"
        + "Via: SIP/2.0/WSS df7jal23ls0d.invalid;rport;branch=z9hG4bKgSnG8OFme5D12nfX\r\n"
        + "Max-Forwards: 70\r\n"
        + "From: \"Alice\" <sip:1001@astra.test>;tag=uoUso8F4CG\r\n"
        + "To: <sip:1002@astra.test>\r\n"
        + "Call-ID: v626VyImx3deVzYoZ4VJs9\r\n"
        + "CSeq: 9203 CANCEL\r\n"
        + "User-Agent: \(AstraVersion.product())\r\n"
        + "Content-Length: 0\r\n"
        + "\r\n"

    static let ack =
        "ACK sip:1002@192.0.2.20:5062;transport=tcp SIP/2.0\r\n"
        + "Via: SIP/2.0/WSS df7jal23ls0d.invalid;rport;branch=z9hG4bKKINE6En2Zv3xplCh\r\n"
        + "Max-Forwards: 70\r\n"
        + "Route: <sip:127.0.0.1:8089;transport=ws;r2=on;lr>\r\n"
        + "Route: <sip:127.0.0.1:5060;transport=tcp;r2=on;lr>\r\n"
        + "From: \"Alice\" <sip:1001@astra.test>;tag=uoUso8F4CG\r\n"
        + "To: <sip:1002@astra.test>;tag=bob1\r\n"
        + "Call-ID: v626VyImx3deVzYoZ4VJs9\r\n"
        + "CSeq: 9203 ACK\r\n"
        + "User-Agent: \(AstraVersion.product())\r\n"
        + "Content-Length: 0\r\n"
        + "\r\n"

    static let bye =
        "BYE sip:1002@192.0.2.20:5062;transport=tcp SIP/2.0\r\n"
        + "Via: SIP/2.0/WSS df7jal23ls0d.invalid;rport;branch=z9hG4bKUE3FPGZ1u5MXw3PK\r\n"
        + "Max-Forwards: 70\r\n"
        + "Route: <sip:127.0.0.1:8089;transport=ws;r2=on;lr>\r\n"
        + "Route: <sip:127.0.0.1:5060;transport=tcp;r2=on;lr>\r\n"
        + "From: \"Alice\" <sip:1001@astra.test>;tag=uoUso8F4CG\r\n"
        + "To: <sip:1002@astra.test>;tag=bob1\r\n"
        + "Call-ID: v626VyImx3deVzYoZ4VJs9\r\n"
        + "CSeq: 9204 BYE\r\n"
        + "User-Agent: \(AstraVersion.product())\r\n"
        + "Content-Length: 0\r\n"
        + "\r\n"

    static let ringing =
        "SIP/2.0 180 Ringing\r\n"
        + "Via: SIP/2.0/TCP 127.0.0.1:5060;branch=z9hG4bKproxy1\r\n"
        + "Via: SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bKcaller1;rport\r\n"
        + "Record-Route: <sip:127.0.0.1:5060;transport=tcp;r2=on;lr>, <sip:127.0.0.1:8089;transport=ws;r2=on;lr>\r\n"
        + "From: \"Alice\" <sip:1001@astra.test>;tag=alice1\r\n"
        + "To: <sip:1002@astra.test>;tag=itRdj7PPln\r\n"
        + "Call-ID: incoming-call-1\r\n"
        + "CSeq: 20 INVITE\r\n"
        + "Contact: <sip:1002@192.0.2.20:5062;transport=tcp>\r\n"
        + "Server: \(AstraVersion.product())\r\n"
        + "Content-Length: 0\r\n"
        + "\r\n"

    static let ok =
        "SIP/2.0 200 OK\r\n"
        + "Via: SIP/2.0/TCP 127.0.0.1:5060;branch=z9hG4bKproxy1\r\n"
        + "Via: SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bKcaller1;rport\r\n"
        + "Record-Route: <sip:127.0.0.1:5060;transport=tcp;r2=on;lr>, <sip:127.0.0.1:8089;transport=ws;r2=on;lr>\r\n"
        + "From: \"Alice\" <sip:1001@astra.test>;tag=alice1\r\n"
        + "To: <sip:1002@astra.test>;tag=itRdj7PPln\r\n"
        + "Call-ID: incoming-call-1\r\n"
        + "CSeq: 20 INVITE\r\n"
        + "Contact: <sip:1002@192.0.2.20:5062;transport=tcp>\r\n"
        + "Allow: INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE\r\n"
        + "Supported: timer\r\n"
        + "Server: \(AstraVersion.product())\r\n"
        + "Content-Length: 103\r\n"
        + "Content-Type: application/sdp\r\n"
        + "\r\n"
        + "v=0\r\n"
        + "o=bob 2 2 IN IP4 192.0.2.20\r\n"
        + "s=-\r\n"
        + "c=IN IP4 192.0.2.20\r\n"
        + "t=0 0\r\n"
        + "m=audio 5000 RTP/AVP 0\r\n"
        + "a=sendrecv\r\n"

    @Test func callerMessages() throws {
        var ringing = InviteSetup.caller()
        ringing.start()
        let invite = ringing.requests[0]
        ringing.receive(InvitePeer.reply(to: invite, 180, recordRoute: InvitePeer.kamailioRecordRoute))
        ringing.hangUp()
        #expect(text(invite.serialized()) == Self.invite)
        #expect(text(ringing.requests(.cancel)[0].serialized()) == Self.cancel)

        var answered = InviteSetup.caller()
        answered.start()
        answered.receive(
            InvitePeer.reply(
                to: answered.requests[0], 200, body: InvitePeer.sdpAnswer,
                recordRoute: InvitePeer.kamailioRecordRoute))
        answered.hangUp()
        #expect(text(answered.acks[0].serialized()) == Self.ack)
        #expect(text(answered.requests(.bye)[0].serialized()) == Self.bye)
    }

    @Test func calleeMessages() throws {
        var callee = InviteSetup.callee()
        callee.apply(try callee.usage.ring())
        callee.apply(try callee.usage.answer(InvitePeer.sdpAnswer))
        #expect(text(callee.responses[0].serialized()) == Self.ringing)
        #expect(text(callee.responses[1].serialized()) == Self.ok)
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
