import Testing

@testable import SIPCore

@Suite("SIPStreamFramer")
struct FramerTests {
    static let register = Array(
        ("REGISTER sip:example.com SIP/2.0\r\nVia: SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK1\r\n"
            + "From: <sip:alice@example.com>;tag=1\r\nTo: <sip:alice@example.com>\r\nCall-ID: a1\r\nCSeq: 1 REGISTER\r\n"
            + "Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n").utf8)
    static let invite = Array(
        ("INVITE sip:bob@example.com SIP/2.0\r\nv: SIP/2.0/TCP 192.0.2.1;branch=z9hG4bK2\r\n"
            + "f: <sip:alice@example.com>;tag=2\r\nt: <sip:bob@example.com>\r\ni: b2\r\nCSeq: 2 INVITE\r\n"
            + "c: application/sdp\r\nl: 12\r\n\r\nv=0\r\n\r\n\r\nx\r\n").utf8)
    static let response = Array(
        ("SIP/2.0 200 OK\r\nVia: SIP/2.0/TCP 192.0.2.1;branch=z9hG4bK2\r\n"
            + "Call-ID: b2\r\nCSeq: 2 INVITE\r\nContent-Length: 5\r\n\r\nhello").utf8)

    enum Event: Equatable {
        case message([UInt8])
        case ping
        case pong
    }

    /// Feeds `chunks` one by one, draining the framer after each.
    static func run(_ chunks: [ArraySlice<UInt8>], role: SIPStreamFramer.KeepAliveRole = .client) throws -> [Event] {
        var framer = SIPStreamFramer(role: role)
        var events = [Event]()
        for chunk in chunks {
            framer.append(chunk)
            while let out = try framer.next() {
                switch out {
                case .message(let m): events.append(.message(m.serialized()))
                case .keepAlivePing: events.append(.ping)
                case .keepAlivePong: events.append(.pong)
                }
            }
        }
        return events
    }

    static let stream: [UInt8] = register + [13, 10, 13, 10] + invite + response + [13, 10] + register
    static let expected: [Event] = [
        .message(register), .ping, .message(invite), .message(response), .pong,
        .message(register),
    ]

    @Test func wholeStreamInOneRead() throws {
        #expect(try Self.run([Self.stream[...]]) == Self.expected)
    }

    @Test func byteByByte() throws {
        let events = try Self.run(Self.stream.indices.map { Self.stream[$0...$0] }, role: .server)
        // To a server, a CRLFCRLF ping fed one byte at a time is first seen as a pong, then
        // upgraded to a ping. (A client reads it as two pongs; the messages are the same.)
        let clientEvents = try Self.run(Self.stream.indices.map { Self.stream[$0...$0] })
        #expect(clientEvents.filter { if case .message = $0 { true } else { false } }
                == events.filter { if case .message = $0 { true } else { false } })
        #expect(
            events.filter { if case .message = $0 { true } else { false } }
                == Self.expected.filter {
                    if case .message = $0 { true } else { false }
                })
        #expect(events.contains(.ping))
    }

    @Test("random split points", arguments: 0..<50)
    func randomSplits(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 1)
        var chunks = [ArraySlice<UInt8>]()
        var i = 0
        while i < Self.stream.count {
            let n = Int.random(in: 1...64, using: &rng)
            chunks.append(Self.stream[i..<min(i + n, Self.stream.count)])
            i += n
        }
        let events = try Self.run(chunks, role: .server)
        let messages = events.compactMap { if case .message(let m) = $0 { m } else { nil } }
        #expect(messages == [Self.register, Self.invite, Self.response, Self.register])
        #expect(events.contains(.ping))
        let clientMessages = try Self.run(chunks).compactMap { if case .message(let m) = $0 { m } else { nil } }
        #expect(clientMessages == messages)
    }

    @Test func manyMessagesInOneRead() throws {
        let many = Array(repeating: Self.invite, count: 100).flatMap { $0 }
        let events = try Self.run([many[...]])
        #expect(events.count == 100)
        #expect(events.allSatisfy { $0 == .message(Self.invite) })
    }

    @Test func keepAlives() throws {
        #expect(try Self.run([[13, 10, 13, 10]]) == [.ping])
        #expect(try Self.run([[13, 10]]) == [.pong])
        // RFC 5626 §4.4.1: a client receives pongs, so two CRLFs in two reads are two pongs…
        #expect(try Self.run([[13, 10], [13, 10]]) == [.pong, .pong])
        #expect(try Self.run([[13, 10], [13, 10], [13, 10]]) == [.pong, .pong, .pong])
        // …while a server answers a ping split across reads (the pong came out first).
        #expect(try Self.run([[13, 10], [13, 10]], role: .server) == [.pong, .ping])
        #expect(try Self.run([[13, 10, 13, 10]], role: .server) == [.ping])
        #expect(try Self.run([[13, 10, 13, 10, 13, 10, 13, 10]]) == [.ping, .ping])
        #expect(try Self.run([[13, 10, 13], [10]]) == [.ping])
        #expect(try Self.run([[13], [10]]) == [.pong])
        #expect(try Self.run([[13, 10] + Self.register[...]]) == [.pong, .message(Self.register)])
    }

    @Test func partialMessageNeedsMoreData() throws {
        var framer = SIPStreamFramer()
        framer.append(Self.invite.dropLast(3))
        #expect(try framer.next() == nil)
        framer.append(Self.invite.suffix(3))
        guard case .message(let m) = try framer.next() else {
            Issue.record("no message")
            return
        }
        #expect(m.serialized() == Self.invite)
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func errorsAreFinal() throws {
        var framer = SIPStreamFramer()
        framer.append(Array("OPTIONS sip:a@b SIP/2.0\r\nCall-ID: x\r\n\r\n".utf8))
        #expect(throws: SIPParseError(.missingContentLength, offset: 0)) { try framer.next() }
        framer.append(Self.register)
        #expect(throws: SIPParseError(.missingContentLength, offset: 0)) { try framer.next() }
    }

    @Test func boundedHeaderSection() throws {
        var framer = SIPStreamFramer(limits: SIPParserLimits(maxHeaderSectionSize: 1024))
        framer.append(Array("INVITE sip:a@b SIP/2.0\r\nX: ".utf8))
        #expect(try framer.next() == nil)
        framer.append([UInt8](repeating: 0x61, count: 2000))
        #expect(throws: SIPParseError(.headerSectionTooLarge, offset: 0)) { try framer.next() }
    }

    @Test func bodyLimit() throws {
        var framer = SIPStreamFramer(limits: SIPParserLimits(maxBodySize: 10))
        framer.append(Array("MESSAGE sip:a@b SIP/2.0\r\nContent-Length: 11\r\n\r\n".utf8))
        #expect(throws: SIPParseError(.bodyTooLarge, offset: 0)) { try framer.next() }
    }
}

extension SIPStreamFramer.Output: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.keepAlivePing, .keepAlivePing), (.keepAlivePong, .keepAlivePong): true
        case (.message(let a), .message(let b)): a.serialized() == b.serialized()
        default: false
        }
    }
}
