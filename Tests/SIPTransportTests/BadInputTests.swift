import Foundation
import SIPCore
import Testing

@testable import SIPTransport

final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    var log: TransportLog { TransportLog { _, text in self.lock.withLock { self.storage.append(text) } } }
    var lines: [String] { lock.withLock { storage } }
}

let okResponse =
    "SIP/2.0 200 OK\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\nCall-ID: c\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"

/// Opens a connection to `server`, collects events until the connection closes.
func runClient(
    _ transport: TransportKind, port: UInt16, log: LogLines, send: [UInt8]? = nil, trace: SIPTrace? = nil
) async throws
    -> (messages: [String], closed: TransportError?)
{
    var options = ConnectionOptions()
    options.log = log.log
    options.keepAlive = nil
    options.maxMessageSize = 4096
    options.trace = trace
    let connection = try await StreamConnection.open(
        host: "127.0.0.1", port: port, transport: transport, options: options)
    if let send { try await connection.send(send) }
    var messages: [String] = []
    var closed: TransportError?
    for await event in connection.events {
        switch event {
        case .message(let m): messages.append(m.text)
        case .closed(let e): closed = e
        }
    }
    return (messages, closed)
}

@Suite("Bad input from the network ends that connection with a logged reason", .serialized)
struct BadInputTests {
    @Test("TCP: a good message, then garbage")
    func tcpGarbage() async throws {
        let server = try TestServer { peer in
            peer.write(okResponse)
            peer.write("\u{1}\u{2}GARBAGE without any header end" + String(repeating: "x", count: 5000))
            peer.waitForClose()
        }
        defer { server.finish() }
        let log = LogLines()
        let (messages, closed) = try await runClient(.tcp, port: server.port, log: log)
        #expect(messages.count == 1)
        // No header end within the limit: the header section is too large (or, with a header
        // end, the start line is invalid) — either way that connection ends.
        #expect(closed?.code == .messageTooLarge || closed?.code == .protocolViolation)
        #expect(log.lines.contains { $0.contains("ended") && $0.contains("SIP framing") })
    }

    @Test("TCP: half a message, then close")
    func tcpHalfMessage() async throws {
        let server = try TestServer { peer in
            peer.write("SIP/2.0 200 OK\r\nContent-Length: 100\r\n\r\nonly part of the body")
        }
        defer { server.finish() }
        let log = LogLines()
        let (messages, closed) = try await runClient(.tcp, port: server.port, log: log)
        #expect(messages.isEmpty)
        #expect(closed?.code == .peerClosed)
        #expect(closed?.detail.contains("in the middle of a message") == true)
        #expect(log.lines.contains { $0.contains("in the middle of a message") })
    }

    @Test("WS: a server answering without the sip subprotocol is refused")
    func wsWithoutSubprotocol() async throws {
        let server = try TestServer { peer in
            let request = peer.read(until: [13, 10, 13, 10])
            peer.write(TestServer.webSocketAnswer(to: request, subprotocol: nil))
            peer.waitForClose()
        }
        defer { server.finish() }
        let log = LogLines()
        await #expect {
            _ = try await runClient(.ws, port: server.port, log: log)
        } throws: { error in
            (error as? TransportError)?.code == .subprotocolRefused
        }
        #expect(log.lines.contains { $0.contains("subprotocolRefused") && $0.contains("Sec-WebSocket-Protocol") })
    }

    @Test("WS: message, then an oversize frame", arguments: [false, true])
    func wsOversize(halfFrameThenClose: Bool) async throws {
        let server = try TestServer { peer in
            let request = peer.read(until: [13, 10, 13, 10])
            peer.write(TestServer.webSocketAnswer(to: request, subprotocol: "sip"))
            peer.write(WebSocketFrame(opcode: .text, payload: Array(okResponse.utf8)).encoded())
            if halfFrameThenClose {
                peer.write(Array(WebSocketFrame(opcode: .text, payload: Array(okResponse.utf8)).encoded().prefix(20)))
                return
            }
            peer.write(WebSocketFrame(opcode: .binary, payload: Array(repeating: 0x41, count: 10_000)).encoded())
            peer.waitForClose()
        }
        defer { server.finish() }
        let log = LogLines()
        let (messages, closed) = try await runClient(.ws, port: server.port, log: log)
        #expect(messages.count == 1)
        #expect(closed?.code == (halfFrameThenClose ? .peerClosed : .messageTooLarge))
        #expect(!log.lines.isEmpty)
    }

    @Test("WS: garbage instead of frames")
    func wsGarbage() async throws {
        let server = try TestServer { peer in
            let request = peer.read(until: [13, 10, 13, 10])
            peer.write(TestServer.webSocketAnswer(to: request, subprotocol: "sip") + "GARBAGE")
            peer.waitForClose()
        }
        defer { server.finish() }
        let log = LogLines()
        let (_, closed) = try await runClient(.ws, port: server.port, log: log)
        #expect(closed?.code == .protocolViolation)
        #expect(log.lines.contains { $0.contains("protocolViolation") })
    }

    @Test("TCP: request goes out, response comes back")
    func tcpRoundTrip() async throws {
        let server = try TestServer { peer in
            peer.read(until: [13, 10, 13, 10])
            peer.write(okResponse)
        }
        defer { server.finish() }
        let log = LogLines()
        let traced = LogLines()
        let request =
            "OPTIONS sip:x SIP/2.0\r\nAuthorization: Digest username=\"1001\", response=\"secret\"\r\n"
            + "Content-Length: 0\r\n\r\n"
        let (messages, closed) = try await runClient(
            .tcp, port: server.port, log: log, send: Array(request.utf8),
            trace: SIPTrace { text in traced.log(.info, text) })
        #expect(messages == [okResponse])
        #expect(closed?.code == .peerClosed)
        // --sip-trace: both directions, with addresses, and no credential.
        let lines = traced.lines
        #expect(lines.count == 2)
        #expect(
            lines.first?.contains("SENT TCP 127.0.0.1:") == true
                && lines.first?.contains("-> 127.0.0.1:\(server.port)") == true)
        #expect(lines.last?.contains("RECV TCP") == true && lines.last?.contains("SIP/2.0 200 OK") == true)
        #expect(!lines.joined().contains("secret"))
    }

    @Test("TCP: a message announcing a body over the size limit")
    func tcpOversize() async throws {
        let server = try TestServer { peer in
            peer.write(
                "SIP/2.0 200 OK\r\nCSeq: 1 OPTIONS\r\nContent-Length: 50000000\r\n\r\n"
                    + String(repeating: "x", count: 8000))
            peer.waitForClose()
        }
        defer { server.finish() }
        let log = LogLines()
        let (messages, closed) = try await runClient(.tcp, port: server.port, log: log)
        #expect(messages.isEmpty)
        #expect(closed?.code == .messageTooLarge || closed?.code == .protocolViolation)
        #expect(!log.lines.isEmpty)
    }

    @Test("TLS and WSS: a peer that does not speak TLS fails the handshake", arguments: [TransportKind.tls, .wss])
    func notTLS(transport: TransportKind) async throws {
        let server = try TestServer { peer in
            peer.readSome()
            peer.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            peer.waitForClose()
        }
        defer { server.finish() }
        let log = LogLines()
        await #expect {
            _ = try await runClient(transport, port: server.port, log: log)
        } throws: { error in
            (error as? TransportError)?.code == .tlsHandshakeFailed
        }
        #expect(log.lines.contains { $0.contains("tlsHandshakeFailed") })
    }
}
