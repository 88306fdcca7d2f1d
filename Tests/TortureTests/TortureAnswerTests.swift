import SIPTransport
import Testing
import ToolSupport

@testable import Torture

/// Answers read from raw bytes (even those a full parser refuses) and the target syntax.
@Suite struct TortureAnswerTests {
    @Test func anAnswerEchoingABadHeaderStillCounts() throws {
        // Kamailio's 400 to scalar02 echoes its overlarge CSeq, which SIPCore refuses.
        let raw = Array(
            ("SIP/2.0 400 Bad CSeq\r\nVia: SIP/2.0/UDP 127.0.0.1:4000;branch=z9hG4bK1\r\ni: scalar02.1\r\n"
                + "CSeq: 36893488147419103232 REGISTER\r\nUnsupported: a,\r\n b\r\nContent-Length: 0\r\n\r\n").utf8)
        let answer = try #require(TortureAnswer(raw: raw))
        #expect(answer.status == 400 && answer.reason == "Bad CSeq" && answer.callID == "scalar02.1")
        #expect(answer.unsupported == "a, b")
        #expect(TortureAnswer(raw: Array("OPTIONS sip:a SIP/2.0\r\n\r\n".utf8)) == nil)
        #expect(TortureAnswer(raw: Array("SIP/2.0 4294967301 big\r\n\r\n".utf8)) == nil)
        #expect(TortureAnswer(raw: Array("SIP/2.0 100 \r\nCall-ID: x\r\n\r\n".utf8))?.isFinal == false)
    }

    @Test func targets() throws {
        let plain = try TortureTarget(parsing: "127.0.0.1:5070", transports: nil)
        #expect(plain.host == "127.0.0.1" && plain.port == 5070 && plain.transports == [.udp])
        #expect(plain.uriHostPort(.udp) == "127.0.0.1:5070")
        let uri = try TortureTarget(parsing: "sip:pbx.example.net;transport=TCP", transports: nil)
        #expect(uri.host == "pbx.example.net" && uri.port == nil && uri.transports == [.tcp])
        #expect(uri.uriHostPort(.tcp) == "pbx.example.net:5060")
        let secure = try TortureTarget(parsing: "sips:[::1]:5061;transport=ws", transports: nil)
        #expect(secure.transports == [.wss] && secure.uriHostPort(.wss) == "[::1]:5061")
        let list = try TortureTarget(parsing: "[::1]", transports: "udp,TCP,udp")
        #expect(list.transports == [.udp, .tcp] && list.uriHostPort(.tls) == "[::1]:5061")
        #expect(throws: ToolError.self) { try TortureTarget(parsing: "::1", transports: nil) }
        #expect(throws: ToolError.self) { try TortureTarget(parsing: "h", transports: "udp,sctp") }
        #expect(throws: ToolError.self) { try TortureTarget(parsing: "sip:h;transport=x", transports: nil) }
    }
}
