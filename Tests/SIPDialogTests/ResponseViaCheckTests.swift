import AstraTestSupport
import SIPCore
import Testing

@testable import SIPDialog

/// RFC 3261 §18.1.2 (a response whose top Via sent-by is not what the client inserted is
/// silently discarded) and §8.1.3.3 (a response with more than one Via is discarded), in the
/// endpoint and in the load engine.
@Suite struct ResponseViaCheckTests {
    /// A 200 for `request` with its Via replaced by `via` (one or more values, one per line).
    static func ok(to request: SIPRequest, via: [String]) -> [UInt8] {
        var response = SIPResponse(to: request, statusCode: 200, toTag: "t1")
        response.headers.remove(.via)
        for (index, value) in via.enumerated() { response.headers.insert(.via, value, at: index) }
        return response.serialized()
    }

    @Test func theEndpointDropsResponsesWithAForeignSentByOrSeveralVias() async throws {
        let net = await EndpointPair()
        // INFO is not answered by B's endpoint (it waits for its TU), so only our forged
        // responses reach A's transaction.
        let request = net.request(.info, branch: "z9hG4bKvia1")
        let events = Collector(net.a.events)
        let updates = Collector(await net.a.startTransaction(request))
        let ours = "SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKvia1;received=192.0.2.1;rport=5070"
        let forged: [[String]] = [
            ["SIP/2.0/UDP 192.0.2.66:5070;branch=z9hG4bKvia1"],  // another host
            ["SIP/2.0/UDP 127.0.0.1;branch=z9hG4bKvia1"],  // no port ≠ 5070
            ["SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKvia1, SIP/2.0/UDP 10.0.0.1;branch=z9hG4bKx"],
            [ours, "SIP/2.0/UDP 10.0.0.1;branch=z9hG4bKx"],
        ]
        for via in forged { try await net.channelB.send(Self.ok(to: request, via: via)) }
        let dropped = await net.settle {
            events.all.filter { if case .discarded = $0 { true } else { false } }.count == forged.count
        }
        #expect(dropped, "\(events.all)")
        #expect(!updates.all.contains { if case .response = $0 { true } else { false } })
        let reasons = events.all.compactMap { if case .discarded(let why) = $0 { why } else { nil } }
        #expect(reasons.filter { $0.contains("§18.1.2") }.count == 2)
        #expect(reasons.filter { $0.contains("§8.1.3.3") }.count == 2)

        // The host compares case-insensitively; received/rport added by the server are fine.
        try await net.channelB.send(Self.ok(to: request, via: [ours]))
        let delivered = await net.settle {
            updates.all.contains { if case .response(let r) = $0 { r.statusCode == 200 } else { false } }
        }
        #expect(delivered)
    }

    @Test func theLoadEngineDropsThemToo() {
        let binding = LocalBinding(transport: .udp, host: "192.0.2.10", port: 5070)
        let ids = SeededIdentifierSource(seed: 3)
        var settings = RegistrationSettings()
        settings.requestedExpires = 60
        let client = RegistrationClient(
            aor: try! SIPURI(parsing: "sip:1001@astra.test"), registrar: try! SIPURI(parsing: "sip:astra.test"),
            credentials: DigestCredentials(username: "1001", password: "x"), settings: settings, ids: ids)
        var load = RegistrationLoad(clients: [client], binding: binding, reliable: false, concurrency: 1)
        load.begin(.register, now: .zero)
        let sent = load.takeOutgoing()
        guard sent.count == 1, case .request(let register) = try! SIPMessage(parsing: sent[0]) else {
            Issue.record("no REGISTER")
            return
        }
        let branch = (try? register.headers.topVia())??.branch ?? ""
        func answer(_ via: [String]) -> SIPResponse {
            var response = SIPResponse(
                to: register, statusCode: 200, toTag: "r1",
                headers: SIPHeaders([(.contact, register.headers[.contact]!)]))
            response.headers.remove(.via)
            for (index, value) in via.enumerated() { response.headers.insert(.via, value, at: index) }
            return try! SIPMessage(parsing: response.serialized()).response!
        }
        load.receive(answer(["SIP/2.0/UDP 192.0.2.99:5070;branch=\(branch)"]), now: .milliseconds(1))
        load.receive(
            answer(["SIP/2.0/UDP 192.0.2.10:5070;branch=\(branch)", "SIP/2.0/UDP x;branch=z9hG4bKy"]),
            now: .milliseconds(1))
        #expect(load.takeOutcomes().isEmpty)
        load.receive(
            answer(["SIP/2.0/UDP 192.0.2.10:5070;branch=\(branch);received=198.51.100.1"]),
            now: .milliseconds(2))
        let outcomes = load.takeOutcomes()
        #expect(outcomes.count == 1)
        if let first = outcomes.first, case .registered = first.result {} else { Issue.record("\(outcomes)") }
    }
}
