import Foundation
import SIPCore
import Testing

@testable import SIPTransport

@Suite("RFC 7118: one SIP message per WebSocket message")
struct RFC7118Tests {
    @Test("RFC 7118 §8 messages arrive as parsed messages; a non-SIP message is dropped, the connection stays")
    func messagesOverWebSocket() async throws {
        let ok = try Vectors.data("rfc7118_8.1_F4_200_OK.dat")
        let invite = try Vectors.data("rfc7118_8.2_F1_INVITE.dat")
        let server = try TestServer { peer in
            let request = peer.read(until: [13, 10, 13, 10])
            peer.write(TestServer.webSocketAnswer(to: request, subprotocol: "sip"))
            peer.write(WebSocketFrame(opcode: .text, payload: ok).encoded())
            peer.write(WebSocketFrame(opcode: .text, payload: Array("not a SIP message".utf8)).encoded())
            // Binary and fragmented: still one SIP message (RFC 7118 §5.1).
            peer.write(WebSocketFrame(fin: false, opcode: .binary, payload: Array(invite.prefix(100))).encoded())
            peer.write(WebSocketFrame(opcode: .continuation, payload: Array(invite.dropFirst(100))).encoded())
            peer.waitForClose()
        }
        defer { server.finish() }
        let log = LogLines()
        var options = ConnectionOptions()
        options.log = log.log
        options.keepAlive = nil
        let connection = try await StreamConnection.open(
            host: "127.0.0.1", port: server.port, transport: .ws, options: options)
        var events = connection.events.makeAsyncIterator()
        guard case .message(let first)? = await events.next(), case .message(let second)? = await events.next() else {
            Issue.record("missing messages")
            return
        }
        #expect(first.bytes == ok && !first.binary)
        #expect(first.message.response?.statusCode == 200)
        let via = try first.message.headers.topVia()
        #expect(via?.transport == .wss && TransportKind(via!.transport) == .wss)
        #expect(via?.host.description.hasSuffix(".invalid") == true)
        #expect(second.binary && second.bytes == invite)
        #expect(second.message.request?.method.rawValue == "INVITE")
        #expect(log.lines.contains { $0.contains("dropped an unparseable SIP message") })
        #expect(await connection.isOpen)
        await connection.close()
    }
}
