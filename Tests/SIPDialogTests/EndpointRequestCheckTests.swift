import AstraTestSupport
import SIPCore
import SIPTransport
import Testing

@testable import SIPDialog

/// The endpoint applies the RFC 3261 §8.2 checks to raw requests from the wire: the refusal goes
/// out through a server transaction, the TU never sees the request.
@Suite struct EndpointRequestCheckTests {
    /// Sends `text` (LF line ends) from A's side of the loopback and returns what B sent back.
    func exchange(_ text: String, net: EndpointPair) async throws -> [SIPResponse] {
        let before = net.channelB.sentMessages.count
        try await net.channelA.send(Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
        _ = await net.settle { net.channelB.sentMessages.count > before }
        return net.channelB.sentMessages.dropFirst(before).compactMap { try? SIPMessage(parsing: $0).response }
    }

    static func message(
        _ method: String, branch: String = "z9hG4bKcheck1", cseq: String? = nil, callID: String = "c1",
        extra: String = "", version: String = "SIP/2.0"
    ) -> String {
        """
        \(method) sip:1002@127.0.0.1 \(version)
        Via: SIP/2.0/UDP 127.0.0.1:5070;branch=\(branch)
        Max-Forwards: 70
        From: <sip:1001@127.0.0.1>;tag=f1
        To: <sip:1002@127.0.0.1>
        Call-ID: \(callID)
        CSeq: \(cseq ?? "1 " + method)
        \(extra.isEmpty ? "" : extra + "\n")Content-Length: 0


        """
    }

    @Test func requireWeLackGets420WithUnsupportedAndTheTUSeesNothing() async throws {
        let net = await EndpointPair()
        let events = Collector(net.b.events)
        let responses = try await exchange(Self.message("INVITE", extra: "Require: 100rel"), net: net)
        #expect(responses.map(\.statusCode) == [420])
        #expect(responses.first?.headers[.unsupported] == "100rel")
        #expect(responses.first.flatMap { try? $0.headers.to() }??.tag != nil)  // §8.2.6.2
        #expect(!events.all.contains { if case .request = $0 { true } else { false } })
    }

    @Test func aRetransmittedRefusedRequestGetsTheSameAnswerFromItsTransaction() async throws {
        let net = await EndpointPair()
        let text = Self.message("SUBSCRIBE")
        let first = try await exchange(text, net: net)
        let second = try await exchange(text, net: net)
        #expect(first.map(\.statusCode) == [405])
        #expect(first.first?.headers[.allow]?.contains("INVITE") == true)
        #expect(second.map(\.statusCode) == [405])
        #expect(first.first?.serialized() == second.first?.serialized())
    }

    @Test func versionUnknownMethodAndSchemeAreRefused() async throws {
        let net = await EndpointPair()
        #expect(try await exchange(Self.message("OPTIONS", version: "SIP/3.0"), net: net).map(\.statusCode) == [505])
        #expect(
            try await exchange(Self.message("FOO", branch: "z9hG4bKcheck2"), net: net).map(\.statusCode) == [501])
        let tel = Self.message("OPTIONS", branch: "z9hG4bKcheck3").replacingOccurrences(
            of: "sip:1002@127.0.0.1 SIP", with: "tel:+1555 SIP")
        #expect(try await exchange(tel, net: net).map(\.statusCode) == [416])
    }

    @Test func missingCSeqGetsAStateless400AndMissingViaIsDropped() async throws {
        let net = await EndpointPair()
        let events = Collector(net.b.events)
        let noCSeq = Self.message("OPTIONS").replacingOccurrences(of: "CSeq: 1 OPTIONS\n", with: "")
        let refused = try await exchange(noCSeq, net: net)
        #expect(refused.map(\.statusCode) == [400])
        #expect(refused.first?.reasonPhrase == "Missing CSeq Header")
        let noVia = Self.message("OPTIONS", branch: "x").replacingOccurrences(
            of: "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=x\n", with: "")
        let before = net.channelB.sentMessages.count
        try await net.channelA.send(Array(noVia.replacingOccurrences(of: "\n", with: "\r\n").utf8))
        let dropped = await net.settle {
            events.all.contains { if case .discarded(let why) = $0 { why.contains("Missing Via") } else { false } }
        }
        #expect(dropped)
        #expect(net.channelB.sentMessages.count == before)
    }

    @Test func aMalformedACKIsNeverAnswered() async throws {
        let net = await EndpointPair()
        let events = Collector(net.b.events)
        let before = net.channelB.sentMessages.count
        let ack = Self.message("ACK", version: "SIP/3.0")
        try await net.channelA.send(Array(ack.replacingOccurrences(of: "\n", with: "\r\n").utf8))
        let dropped = await net.settle {
            events.all.contains { if case .discarded(let why) = $0 { why.hasPrefix("ACK dropped") } else { false } }
        }
        #expect(dropped)
        #expect(net.channelB.sentMessages.count == before)
    }

    /// §8.2.2.2: the same INVITE (From tag, Call-ID, CSeq) arriving by a second path (another
    /// branch) while the first is still pending gets 482; the first is unaffected.
    @Test func aMergedRequestGets482() async throws {
        let net = await EndpointPair()
        let events = Collector(net.b.events)
        let first = try await exchange(Self.message("INVITE", branch: "z9hG4bKpath1"), net: net)
        #expect(first.map(\.statusCode) == [100])
        let second = try await exchange(Self.message("INVITE", branch: "z9hG4bKpath2"), net: net)
        #expect(second.map(\.statusCode) == [482])
        let requests = events.all.filter { if case .request = $0 { true } else { false } }
        #expect(requests.count == 1)
        // A different CSeq is a new request, not a merged one.
        let third = try await exchange(Self.message("INVITE", branch: "z9hG4bKpath3", cseq: "2 INVITE"), net: net)
        #expect(third.map(\.statusCode) == [100])
    }
}
