import Testing

@testable import SIPCore

@Suite("Errors and limits")
struct ErrorTests {
    static func error(_ text: String, limits: SIPParserLimits = .default) -> SIPParseError? {
        do {
            _ = try SIPMessage(parsing: Array(text.utf8), limits: limits)
            return nil
        } catch {
            return error
        }
    }

    static let head = "INVITE sip:bob@example.com SIP/2.0\r\n"

    @Test func startLineErrors() {
        let cases: [(String, SIPParseError.Code)] = [
            ("", .emptyMessage), ("\r\n\r\n", .emptyMessage),
            ("INVITE sip:a@b SIP/2.0", .unterminatedHeaderSection),
            ("INVITE\r\n\r\n", .invalidStartLine), ("INV(TE sip:a@b SIP/2.0\r\n\r\n", .invalidMethod),
            ("INVITE sip:a@b HTTP/1.1\r\n\r\n", .invalidVersion), ("INVITE sip:a@b SIP/2.0 \r\n\r\n", .invalidVersion),
            ("INVITE <sip:a@b> SIP/2.0\r\n\r\n", .invalidRequestURI),
            ("INVITE sip:a@b:70000 SIP/2.0\r\n\r\n", .invalidRequestURI),
            ("SIP/2.0 99 Low\r\n\r\n", .invalidStatusCode), ("SIP/2.0 700 High\r\n\r\n", .invalidStatusCode),
            ("SIP/2.0 2000 OK\r\n\r\n", .invalidStatusCode), ("SIP/x.0 200 OK\r\n\r\n", .invalidVersion),
            ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidVersion), ("SIP/2.0 200 O\rK\r\n\r\n", .invalidReasonPhrase),
        ]
        for (text, code) in cases {
            #expect(Self.error(text)?.code == code, "\(text.debugDescription)")
        }
    }

    @Test func headerErrorsNameTheHeaderAndOffset() throws {
        let text = Self.head + "Call-ID: a\r\nCSeq: x INVITE\r\n\r\n"
        let error = try #require(Self.error(text))
        #expect(error.code == .invalidHeaderValue)
        #expect(error.headerName == "CSeq")
        #expect(error.offset == Self.head.utf8.count + "Call-ID: a\r\nCSeq: ".utf8.count)
        #expect(error.description.contains("CSeq"))

        let noColon = try #require(Self.error(Self.head + "Foobar roobar\r\n\r\n"))
        #expect(noColon.code == .invalidHeaderLine && noColon.headerName == "Foobar")
        #expect(Self.error(Self.head + " folded-first: x\r\n\r\n")?.code == .invalidHeaderLine)
        #expect(Self.error(Self.head + "X: a\rb\r\n\r\n")?.code == .bareCarriageReturn)
        #expect(Self.error(Self.head + "Max-Forwards: 256\r\n\r\n")?.code == .numberOutOfRange)
        #expect(Self.error(Self.head + "CSeq: 4294967296 INVITE\r\n\r\n")?.code == .numberOutOfRange)
        #expect(Self.error(Self.head + "CSeq: 4294967295 INVITE\r\n\r\n") == nil)
        #expect(Self.error(Self.head + "Via: SIP/2.0/UDP\r\n\r\n")?.code == .invalidHeaderValue)
        #expect(Self.error(Self.head + "Via: SIP/2.0/UDP h;branch=\r\n\r\n")?.code == .invalidHeaderValue)
        #expect(Self.error(Self.head + "To: <sip:a@b\r\n\r\n")?.code == .invalidHeaderValue)
        #expect(Self.error(Self.head + "From: <http:\r\n\r\n")?.code == .invalidHeaderValue)
        #expect(Self.error(Self.head + "Contact: <sip:a@b>;;\r\n\r\n")?.code == .invalidHeaderValue)
        #expect(Self.error(Self.head + "Call-ID: \r\n\r\n")?.code == .invalidHeaderValue)
    }

    @Test func contentLengthErrors() {
        #expect(Self.error(Self.head + "Content-Length: -1\r\n\r\n")?.code == .invalidContentLength)
        #expect(Self.error(Self.head + "Content-Length: 1x\r\n\r\n")?.code == .invalidContentLength)
        #expect(Self.error(Self.head + "Content-Length: 5\r\n\r\nabc")?.code == .truncatedBody)
        #expect(Self.error(Self.head + "Content-Length: 3\r\nl: 4\r\n\r\nabcd")?.code == .conflictingContentLength)
        #expect(Self.error(Self.head + "Content-Length: 3\r\nl: 3\r\n\r\nabc") == nil)
        #expect(Self.error(Self.head + "Content-Length: 99999999999999999999999\r\n\r\n")?.code == .bodyTooLarge)
    }

    @Test func limits() {
        let small = SIPParserLimits(maxHeaderCount: 3, maxLineLength: 64, maxHeaderSectionSize: 256, maxBodySize: 8)
        #expect(Self.error(Self.head + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: small) == nil)
        #expect(Self.error(Self.head + "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", limits: small)?.code == .tooManyHeaders)
        let long = "X: " + String(repeating: "a", count: 70) + "\r\n"
        #expect(Self.error(Self.head + long + "\r\n", limits: small)?.code == .lineTooLong)
        let folded = "X: " + String(repeating: "a\r\n ", count: 30) + "\r\n"
        #expect(Self.error(Self.head + folded + "\r\n", limits: small)?.code == .lineTooLong)
        #expect(
            Self.error("INVITE sip:" + String(repeating: "a", count: 80) + "@b SIP/2.0\r\n\r\n", limits: small)?.code
                == .lineTooLong)
        let many = String(repeating: "Subject: 0123456789012345678901234567890123456789\r\n", count: 3)
        let section = SIPParserLimits(
            maxHeaderCount: 100, maxLineLength: 100, maxHeaderSectionSize: 128, maxBodySize: 8)
        #expect(Self.error(Self.head + many + "\r\n", limits: section)?.code == .headerSectionTooLarge)
        #expect(Self.error(Self.head + "Content-Length: 9\r\n\r\n123456789", limits: small)?.code == .bodyTooLarge)
        #expect(Self.error(Self.head + "\r\n123456789", limits: small)?.code == .bodyTooLarge)
    }

    @Test func errorsCompareOnCode() {
        #expect(SIPParseError(.lineTooLong, offset: 1, headerName: "A") == SIPParseError(.lineTooLong, offset: 9))
        #expect(SIPParseError(.lineTooLong, offset: 1) != SIPParseError(.tooManyHeaders, offset: 1))
    }

    /// Mutated vectors (seeded): every input yields a message or a typed error, and accepted ones
    /// re-parse after serialization.
    @Test func mutatedVectorsNeverTrap() throws {
        var rng = SeededGenerator(seed: 4475)
        let seeds = VectorTests.names.map { Vectors.bytes(Vectors.manifest.messages[$0]!.file) }
        for _ in 0..<3000 {
            var bytes = seeds.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...8, using: &rng) where !bytes.isEmpty {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[i] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.remove(at: i)
                case 2:
                    bytes.insert(
                        [13, 10, 32, 58, 59, 44, 34, 60, 62, 91, 93][Int.random(in: 0..<11, using: &rng)], at: i)
                default: bytes.removeSubrange(i..<min(bytes.count, i + Int.random(in: 1...40, using: &rng)))
                }
            }
            if let message = try? SIPMessage(parsing: bytes) {
                let wire = message.serialized()
                #expect((try? SIPMessage(parsing: wire))?.serialized() == wire)
                _ = try? message.headers.vias()
                _ = try? message.headers.contacts()
            }
            var framer = SIPStreamFramer()
            framer.append(bytes)
            while let out = try? framer.next() { _ = out }
        }
    }
}
