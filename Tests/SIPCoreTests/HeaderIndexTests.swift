import AstraTestSupport
import Foundation
import Testing

@testable import SIPCore

/// The index the parse records for the hot headers (``HeaderIndex``) must never change what an
/// accessor returns: every typed value read through it equals the value the line scan gives
/// (`withoutIndex`), on the RFC vectors, on the messages captured from real peers, on framed
/// stream messages and on seeded mutations; and any edit drops it.
@Suite("Header index cached at parse time")
struct HeaderIndexTests {
    /// The corpus bench-sip measures (``SIPCorpus``), the messages this parser accepts.
    static let corpus: [(name: String, bytes: [UInt8])] = SIPCorpus.load(Vectors.directory.path).filter {
        (try? SIPMessage(parsing: $0.bytes)) != nil
    }

    /// Every hot-header accessor's outcome, value or error code, as one comparable record.
    struct Reading: Equatable, CustomStringConvertible {
        var topVia: Result<SIPVia?, SIPParseError>
        var vias: Result<[SIPVia], SIPParseError>
        var from: Result<SIPNameAddress?, SIPParseError>
        var to: Result<SIPNameAddress?, SIPParseError>
        var fromTag: Result<String?, SIPParseError>
        var toTag: Result<String?, SIPParseError>
        var callID: String?
        var cseq: Result<SIPCSeq?, SIPParseError>
        var contacts: Result<[SIPContact], SIPParseError>
        var maxForwards: Result<Int?, SIPParseError>
        var contentLength: Result<Int?, SIPParseError>
        var expires: Result<UInt32?, SIPParseError>
        var contentType: String?
        var topViaBranch: String?
        var responseVia: ResponseVia

        init(_ h: SIPHeaders) {
            func run<T>(_ f: () throws(SIPParseError) -> T) -> Result<T, SIPParseError> {
                do throws(SIPParseError) { return .success(try f()) } catch { return .failure(error) }
            }
            topVia = run { () throws(SIPParseError) in try h.topVia() }
            vias = run { () throws(SIPParseError) in try h.vias() }
            from = run { () throws(SIPParseError) in try h.from() }
            to = run { () throws(SIPParseError) in try h.to() }
            fromTag = run { () throws(SIPParseError) in try h.fromTag() }
            toTag = run { () throws(SIPParseError) in try h.toTag() }
            callID = h.callID
            cseq = run { () throws(SIPParseError) in try h.cseq() }
            contacts = run { () throws(SIPParseError) in try h.contacts() }
            maxForwards = run { () throws(SIPParseError) in try h.maxForwards() }
            contentLength = run { () throws(SIPParseError) in try h.contentLength() }
            expires = run { () throws(SIPParseError) in try h.expires() }
            contentType = h.contentType
            // Through the index, the branch `topVia()` parses (unquoted); without it the byte scan
            // runs, which keeps quotes (HeaderTests covers it), so it is not compared here.
            topViaBranch = h.parsedIndex == nil ? nil : h.topViaBranch
            if h.parsedIndex != nil { #expect(topViaBranch == ((try? h.topVia()) ?? nil)?.branch) }
            responseVia = h.responseVia
        }

        static func == (a: Reading, b: Reading) -> Bool {
            a.topVia == b.topVia && a.vias == b.vias && a.from == b.from && a.to == b.to && a.fromTag == b.fromTag
                && a.toTag == b.toTag && a.callID == b.callID && a.cseq == b.cseq && a.contacts == b.contacts
                && a.maxForwards == b.maxForwards && a.contentLength == b.contentLength && a.expires == b.expires
                && a.contentType == b.contentType && a.responseVia == b.responseVia
        }

        var description: String {
            "topVia \(topVia) from \(from) to \(to) tags \(fromTag) \(toTag) callID \(callID ?? "-") cseq \(cseq) "
                + "contacts \(contacts) maxForwards \(maxForwards) contentLength \(contentLength) "
                + "expires \(expires) contentType \(contentType ?? "-") branch \(topViaBranch ?? "-")"
        }
    }

    static func checkIndexAgreesWithScan(_ message: SIPMessage, _ name: String) {
        let headers = message.headers
        #expect(headers.parsedIndex != nil, "\(name): a parsed message has an index")
        let indexed = Reading(headers)
        let scanned = Reading(headers.withoutIndex)
        #expect(indexed == scanned, "\(name)\nindexed \(indexed)\nscanned \(scanned)")
        // The tags are the addresses' tags; the branch is the top Via's.
        if case .success(let from) = indexed.from { #expect(indexed.fromTag == .success(from?.tag), "\(name)") }
        if case .success(let to) = indexed.to { #expect(indexed.toTag == .success(to?.tag), "\(name)") }
    }

    @Test func corpusIsTheVectorsAndTheCapturedTraces() {
        #expect(Self.corpus.count > RoundTripTests.accepted.count + 40)
    }

    @Test func indexedAccessorsEqualTheLineScanOnTheCorpus() throws {
        for (name, bytes) in Self.corpus {
            Self.checkIndexAgreesWithScan(try SIPMessage(parsing: bytes), name)
        }
    }

    /// parse → serialize → parse: the same bytes and the same typed values.
    @Test func reparsedSerializationReadsTheSame() throws {
        for (name, bytes) in Self.corpus {
            let message = try SIPMessage(parsing: bytes)
            let again = try SIPMessage(parsing: message.serialized())
            #expect(again.serialized() == message.serialized(), "\(name)")
            #expect(Reading(again.headers) == Reading(message.headers), "\(name)")
        }
    }

    /// Framed messages carry offsets from their own first byte, like datagrams.
    @Test func framedStreamMessagesHaveTheSameIndex() throws {
        // Those that frame alone as exactly themselves (not the RFC 5118 archive forms whose
        // header section ends with the file, nor messages without Content-Length).
        let stream = Self.corpus.map(\.1).filter { bytes in
            var one = SIPStreamFramer()
            one.append(bytes)
            guard case .message(let m)? = try? one.next() else { return false }
            return m.serialized() == bytes && (try? one.next()) == nil
        }
        var framer = SIPStreamFramer()
        framer.append([13, 10, 13, 10] + stream.joined())
        var framed = [SIPMessage]()
        while let out = try framer.next() { if case .message(let m) = out { framed.append(m) } }
        #expect(framed.count == stream.count && framed.count > 50)
        for (n, (message, bytes)) in zip(framed, stream).enumerated() {
            Self.checkIndexAgreesWithScan(message, "framed #\(n)")
            #expect(Reading(message.headers) == Reading(try SIPMessage(parsing: bytes).headers), "framed #\(n)")
        }
    }

    /// Seeded mutations of the corpus: whatever still parses reads the same through the index.
    @Test func mutatedMessagesAgree() {
        var rng = SeededGenerator(seed: 3261)
        let seeds = Self.corpus.map(\.1)
        var accepted = 0
        for _ in 0..<2000 {
            var bytes = seeds.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[i] = Array(";=,\"<> \t:0tagbranch9".utf8).randomElement(using: &rng)!
                case 1: bytes.remove(at: i)
                default: bytes.insert(Array(";=,\" 0".utf8).randomElement(using: &rng)!, at: i)
                }
            }
            guard let message = try? SIPMessage(parsing: bytes) else { continue }
            accepted += 1
            Self.checkIndexAgreesWithScan(message, "mutation of \(bytes.count) bytes")
        }
        #expect(accepted > 500)
    }

    /// Hot headers written in every way RFC 3261 allows: compact forms, case, folding, repeats.
    @Test func unusualFormsAgree() throws {
        let lines = [
            "v: SIP/2.0/UDP a.example.com;BRANCH=\"z9hG4bKq\";rport, SIP/2.0/TCP b:5070;branch=z9hG4bKz\r\n"
                + "Via: SIP/2.0/TLS c;branch=z9hG4bKc\r\n",
            "Via: SIP/2.0/UDP h\r\n ;branch=z9hG4bKf\r\nf: <sip:a@b>;TAG=x1;tag=x2\r\nt: sip:c@d;tag\r\n",
            "f: \"A, B\" <sip:a@b;tag=uri>;tag=outer\r\nTo: <sip:c@d>\r\ni: abc@def  \r\nl: 0\r\n",
            "CSeq:  0010   INVITE \r\ncseq: 11 ACK\r\nMax-Forwards: 007\r\nmax-forwards: 9\r\n",
            "Expires: 4294967296\r\nExpires: 10\r\nContact: *\r\nm: <sip:x@y>;expires=5\r\n",
            "Expires: 60 \r\nc: application/sdp \r\nContent-Type: text/plain\r\n",
            "Call-ID: a\r\nExpires: soon\r\n",
        ]
        for text in lines {
            let message = try HeaderTests.parse(text)
            Self.checkIndexAgreesWithScan(message, text)
        }
        let h = try HeaderTests.parse(lines[1]).headers
        #expect(try h.fromTag() == "x1" && h.toTag() == nil)
        let q = try HeaderTests.parse(lines[0]).headers
        #expect(try q.topVia()?.branch == "z9hG4bKq" && q.topViaBranch == "z9hG4bKq")
        let e = try HeaderTests.parse(lines[4]).headers
        #expect(throws: SIPParseError(.numberOutOfRange, offset: 0)) { try e.expires() }
        let s = try HeaderTests.parse(lines[6]).headers
        #expect(throws: SIPParseError(.invalidHeaderValue, offset: 0)) { try s.expires() }
    }

    /// Slot numbers are 16-bit: a header section with more lines than that counts gets no index
    /// (the accessors scan), one with exactly that many gets one that answers the same.
    @Test func headerSectionsBeyondSixteenBitSlotsGetNoIndex() throws {
        let limits = SIPParserLimits(maxHeaderCount: 40_000, maxHeaderSectionSize: 1 << 20)
        func message(filler: Int) throws -> SIPHeaders {
            let text =
                "OPTIONS sip:a@b SIP/2.0\r\n" + String(repeating: "X: y\r\n", count: filler)
                + "Via: SIP/2.0/UDP h;branch=z9hG4bK2\r\nCSeq: 7 OPTIONS\r\nCall-ID: c9 \r\n\r\n"
            return try SIPMessage(parsing: text, limits: limits).headers
        }
        let over = try message(filler: Int(Int16.max) - 2)
        #expect(over.count == Int(Int16.max) + 1 && over.parsedIndex == nil)
        #expect(try over.cseq() == SIPCSeq(7, .options) && over.callID == "c9" && over.topViaBranch == "z9hG4bK2")
        let fits = try message(filler: Int(Int16.max) - 3)
        #expect(fits.count == Int(Int16.max) && fits.parsedIndex != nil)
        #expect(Reading(fits) == Reading(fits.withoutIndex))
        #expect(try fits.cseq() == SIPCSeq(7, .options) && fits.callID == "c9" && fits.topViaBranch == "z9hG4bK2")
    }

    /// Every edit drops the index; what the accessors return then follows the edited lines.
    @Test func editsDropTheIndex() throws {
        let original = try HeaderTests.parse(
            "Via: SIP/2.0/UDP a;branch=z9hG4bK1\r\nFrom: <sip:a@b>;tag=f1\r\nTo: <sip:c@d>\r\n"
                + "Call-ID: c1\r\nCSeq: 1 INVITE\r\nMax-Forwards: 70\r\nExpires: 30\r\n")
        var h = original.headers
        h.set(.cseq, "9 BYE")
        #expect(h.parsedIndex == nil)
        #expect(try h.cseq() == SIPCSeq(9, .bye))
        h = original.headers
        h.insert(.via, "SIP/2.0/TCP z;branch=z9hG4bK0", at: 0)
        #expect(try h.topVia()?.branch == "z9hG4bK0" && h.topViaBranch == "z9hG4bK0")
        h = original.headers
        #expect(h.remove(.from) == 1)
        #expect(try h.fromTag() == nil && h.from() == nil)
        h = original.headers
        h.set(.to, "<sip:c@d>;tag=t9")
        #expect(try h.toTag() == "t9")
        h = original.headers
        h.remove(at: 0)
        #expect(try h.topVia() == nil)
        h = original.headers
        h.add(.contentLength, "5")
        h.remove(.maxForwards)
        h.set(.expires, "99")
        h.set(.callID, "c2")
        #expect(try h.maxForwards() == nil && h.expires() == 99 && h.contentLength() == 0 && h.callID == "c2")
        h = original.headers
        _ = try h.removeTopVia()
        #expect(try h.topVia() == nil && h.parsedIndex == nil)
        // The message itself keeps serializing its original bytes until an edit.
        var message = original
        #expect(message.headers.parsedIndex != nil)
        var edited = message.headers
        edited.add("X-Added", "1")
        message.headers = edited
        #expect(try SIPMessage(parsing: message.serialized()).headers.parsedIndex != nil)
        #expect(Reading(message.headers) == Reading(original.headers))
    }
}
