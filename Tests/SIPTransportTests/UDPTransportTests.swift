import Glibc
import Synchronization
import Testing

@testable import SIPTransport

@Suite("UDP: one socket, many peers, IPv4 and IPv6")
struct UDPTransportTests {
    @Test("A server socket answers each peer at its source address", arguments: ["127.0.0.1", "::1"])
    func manyPeers(loopback: String) async throws {
        let server = try UDPTransport(local: SocketAddress(ip: loopback, port: 0)!)
        let a = try UDPTransport(local: SocketAddress(ip: loopback, port: 0)!)
        let b = try UDPTransport(local: SocketAddress(ip: loopback, port: 0)!)
        #expect(server.local.port != 0 && server.local.isIPv6 == (loopback == "::1"))
        func options(_ tag: String) -> [UInt8] {
            Array(
                ("OPTIONS sip:x SIP/2.0\r\nVia: SIP/2.0/UDP h;branch=z9hG4bK\(tag)\r\nFrom: <sip:a@h>;tag=\(tag)\r\n"
                    + "To: <sip:x>\r\nCall-ID: \(tag)\r\nCSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n")
                    .utf8)
        }
        try await a.send(options("a"), to: server.local)
        try await b.send(options("b"), to: server.local)
        try await a.send(Array("garbage, not SIP".utf8), to: server.local)  // logged and dropped
        var inbox = server.events.makeAsyncIterator()
        for _ in 0..<2 {
            guard let request = await inbox.next() else {
                Issue.record("no datagram")
                return
            }
            // RFC 3581: the source address is where the answer goes.
            let tag = request.message.headers["Call-ID"] ?? "?"
            #expect(request.message.request?.method.rawValue == "OPTIONS")
            #expect(request.remote == (tag == "a" ? a.local : b.local))
            let answer =
                "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP h;branch=z9hG4bK\(tag)\r\nCall-ID: \(tag)\r\n"
                + "CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
            try await server.send(Array(answer.utf8), to: request.remote)
        }
        var aInbox = a.events.makeAsyncIterator()
        var bInbox = b.events.makeAsyncIterator()
        #expect(await aInbox.next()?.message.headers["Call-ID"] == "a")
        #expect(await bInbox.next()?.message.response?.statusCode == 200)
        await server.close()
        await a.close()
        await b.close()
    }

    /// A datagram sent without waiting is traced once `sendto` took it; the answer, which can
    /// come back before that, must still be traced after it (the trace's wire order: the ladder,
    /// trace file and pcap of a call showed answers before their requests).
    @Test("An answer is never traced before the request sent without waiting")
    func traceKeepsWireOrder() async throws {
        let records = Mutex<[SIPTraceFormatter.Direction]>([])
        let trace = SIPTrace { message in
            if message.direction == .sent {
                // Give the echo every chance to overtake this record: wait (bounded) for its record.
                let until = ContinuousClock.now + .milliseconds(500)
                while ContinuousClock.now < until, !records.withLock({ $0.contains(.received) }) {
                    usleep(1000)
                }
            }
            records.withLock { $0.append(message.direction) }
        }
        let echo = try UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!)
        let client = try UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!, trace: trace)
        let echoing = Task {
            for await datagram in echo.events { try? await echo.send(datagram.bytes, to: datagram.remote) }
        }
        let request = Array(
            ("OPTIONS sip:x SIP/2.0\r\nVia: SIP/2.0/UDP h;branch=z9hG4bKe\r\nFrom: <sip:a@h>;tag=e\r\n"
                + "To: <sip:x>\r\nCall-ID: e\r\nCSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n")
                .utf8)
        var inbox = client.events.makeAsyncIterator()
        #expect(client.sendImmediately(request, to: echo.local))
        #expect(await inbox.next()?.message.headers["Call-ID"] == "e")
        #expect(records.withLock { $0 } == [.sent, .received])
        echoing.cancel()
        await echo.close()
        await client.close()
    }

    @Test("Oversize datagrams and wrong address families are refused")
    func refusals() async throws {
        let udp = try UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!)
        await #expect(throws: TransportError(.messageTooLarge, "")) {
            try await udp.send([UInt8](repeating: 65, count: 70_000), to: SocketAddress(ip: "127.0.0.1", port: 9)!)
        }
        await #expect(throws: TransportError(.invalidArgument, "")) {
            try await udp.send([65], to: SocketAddress(ip: "::1", port: 9)!)
        }
        await udp.close()
    }

    @Test("Transport facts visible to the layers above")
    func kinds() {
        #expect(!TransportKind.udp.isReliable)
        #expect(TransportKind.allCases.filter(\.isReliable) == [.tcp, .tls, .ws, .wss])
        #expect(TransportKind.wss.viaToken == "WSS" && TransportKind.ws.uriParameter == "ws")
        #expect(TransportKind(name: "WSS") == .wss)
        #expect(SocketAddress(ip: "::1", port: 5060)?.description == "[::1]:5060")
        #expect(SocketAddress(ip: "sip.example.com", port: 5060) == nil)
    }

    @Test("Resolution: numeric addresses as is, localhost through getaddrinfo, unknown names fail")
    func resolution() async throws {
        #expect(
            try await Resolver.resolve(host: "[::1]", port: 5061, transport: .tls) == [
                SocketAddress(ip: "::1", port: 5061)!
            ])
        let local = try await Resolver.resolve(host: "localhost", port: 5060, transport: .udp)
        #expect(local.contains(SocketAddress(ip: "127.0.0.1", port: 5060)!))
        await #expect(throws: TransportError(.resolutionFailed, "")) {
            _ = try await Resolver.resolve(host: "no-such-host.invalid", port: 5060, transport: .tcp)
        }
    }
}
