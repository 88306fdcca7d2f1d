import SIPCore
import Testing

@testable import SIPTransport

@Suite("RFC 6455 §4 opening handshake with the RFC 7118 sip subprotocol")
struct WebSocketHandshakeTests {
    let key = "dGhlIHNhbXBsZSBub25jZQ=="

    @Test("Accept key of RFC 6455 §1.3")
    func acceptKey() throws {
        let json = try Vectors.json()["rfc6455_handshake"] as! [String: Any]
        #expect(
            WebSocketHandshake.acceptValue(for: json["sec_websocket_key"] as! String)
                == json["expected_sec_websocket_accept"] as! String)
    }

    @Test("RFC 7118 §4.1 request and response")
    func rfc7118Example() throws {
        let request = try Vectors.data("rfc7118_4.1_ws_handshake_request.dat")
        let response = try Vectors.data("rfc7118_4.1_ws_handshake_response.dat")
        let handshake = WebSocketHandshake(
            host: "sip-ws.example.com", path: "/", key: key, origin: "http://www.example.com")
        #expect(handshake.request() == request)
        for chunking in Chunking.allCases {
            var h = handshake
            var outcome = WebSocketHandshake.Outcome.needMoreData
            for chunk in chunking.split(response + [0x81, 0x00]) where outcome == .needMoreData {
                outcome = h.receive(chunk)
            }
            guard case .accepted(let proto, let leftover) = outcome else {
                Issue.record("\(outcome)")
                continue
            }
            #expect(proto == "sip")
            #expect([0x81, 0x00].starts(with: leftover))
        }
    }

    func answer(_ lines: [String]) -> WebSocketHandshake.Outcome {
        var h = WebSocketHandshake(host: "h", path: "/ws", key: key)
        return h.receive(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
    }

    let good = [
        "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
        "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
    ]

    @Test("A server answering without the sip subprotocol is refused")
    func noSubprotocol() {
        guard case .refused(let error) = answer(good) else {
            Issue.record("accepted")
            return
        }
        #expect(error.code == .subprotocolRefused)
        #expect(error.detail.contains("RFC 7118"))
        guard case .refused(let other) = answer(good + ["Sec-WebSocket-Protocol: chat"]) else {
            Issue.record("accepted")
            return
        }
        #expect(other.code == .subprotocolRefused)
        guard case .accepted = answer(good + ["Sec-WebSocket-Protocol: sip"]) else {
            Issue.record("refused")
            return
        }
    }

    @Test(
        "Wrong status, accept key, Upgrade or Connection is refused",
        arguments: [
            ["HTTP/1.1 200 OK"],
            [
                "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
                "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=", "Sec-WebSocket-Protocol: sip",
            ],
            [
                "HTTP/1.1 101 Switching Protocols", "Connection: Upgrade",
                "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Sec-WebSocket-Protocol: sip",
            ],
            [
                "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket",
                "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Sec-WebSocket-Protocol: sip",
            ],
        ])
    func refused(lines: [String]) {
        guard case .refused(let error) = answer(lines) else {
            Issue.record("accepted")
            return
        }
        #expect(error.code == .webSocketHandshakeFailed)
    }

    @Test("Request carries key, version 13 and the sip subprotocol")
    func request() {
        let h = WebSocketHandshake(host: "127.0.0.1:8080", nonce: SeededIdentifierSource(seed: 9))
        let text = String(decoding: h.request(), as: UTF8.self)
        #expect(text.hasPrefix("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"))
        #expect(text.contains("Sec-WebSocket-Protocol: sip\r\n"))
        #expect(text.contains("Sec-WebSocket-Version: 13\r\n"))
        #expect(h.key.count == 24)
    }
}
