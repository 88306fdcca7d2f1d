import AstraTestSupport
import SIPCore
import Testing
@testable import SIPDialog

/// A line that only registers answers whatever the server sends it, and every server
/// transaction it opens ends (RFC 3261 §17.2), in virtual time.
@Suite struct RegistrationOnlyLineTests {
    // MARK: The pure decision

    struct Case: Sendable, CustomTestStringConvertible {
        let method: SIPMethod
        let toTag: Bool
        let status: Int
        var testDescription: String { "\(method.rawValue)\(toTag ? " in dialog" : "") → \(status)" }
    }

    static let table: [Case] = [
        Case(method: .invite, toTag: false, status: 480), Case(method: .invite, toTag: true, status: 481),
        Case(method: .options, toTag: false, status: 200), Case(method: .options, toTag: true, status: 200),
        Case(method: .bye, toTag: false, status: 481), Case(method: .bye, toTag: true, status: 481),
        Case(method: .notify, toTag: false, status: 481), Case(method: .info, toTag: true, status: 481),
        Case(method: .update, toTag: false, status: 481), Case(method: .prack, toTag: true, status: 481),
        Case(method: .subscribe, toTag: false, status: 489), Case(method: .message, toTag: false, status: 480),
        Case(method: .refer, toTag: false, status: 480), Case(method: .message, toTag: true, status: 481),
    ]

    @Test(arguments: table) func answersEachRequest(_ c: Case) async {
        let net = await EndpointPair()
        var request = net.request(c.method)
        if c.toTag { request.headers.set(.to, "<sip:1002@127.0.0.1>;tag=peer1") }
        let answer = RegistrationOnlyAnswer.answer(to: request)
        #expect(answer.status == c.status)
        if c.method == .invite && !c.toTag {
            #expect(answer.headers.contains { $0.name == SIPHeaderName("Reason") && $0.value.contains("cause=480") })
        }
        if c.method == .options {
            #expect(answer.headers.contains { $0.name == .allow && $0.value.contains("INVITE") })
        }
    }

    @Test func aCancelledInviteGets487() {
        #expect(RegistrationOnlyAnswer.cancelledInvite.status == 487)
    }

    // MARK: The actor shell over a real endpoint

    /// A registration-only line on `a`, registered with the test registrar on `b`.
    func registeredLine() async -> (EndpointPair, LineRegistration) {
        let net = await EndpointPair.unstarted()
        _ = TestRegistrar(endpoint: net.b, grant: 3600)
        await net.b.start()
        let line = net.registrationLine()
        let events = Collector(line.events)
        await line.start()
        let registered = await net.run(until: .seconds(1)) {
            events.all.contains { if case .registration(.registered) = $0 { true } else { false } }
        }
        #expect(registered == .zero)
        return (net, line)
    }

    func finalStatus(_ updates: Collector<ClientTransactionUpdate>) -> SIPResponse? {
        for case .response(let r) in updates.all where r.statusCode >= 200 { return r }
        return nil
    }

    @Test func anInviteGets100Then480AtOnceAndItsTransactionIsFreed() async throws {
        let (net, line) = await registeredLine()
        let updates = Collector(await net.b.startTransaction(net.request(.invite)))
        let answeredAt = await net.run(until: .seconds(1)) { finalStatus(updates) != nil }
        #expect(answeredAt == .zero)  // no timer involved: answered as soon as it arrived
        let statuses = updates.all.compactMap { if case .response(let r) = $0 { r.statusCode } else { nil } }
        #expect(statuses == [100, 480])
        let reject = try #require(finalStatus(updates))
        #expect(reject.headers[SIPHeaderName("Reason")] == RegistrationOnlyAnswer.inviteReason)
        #expect(((try? reject.headers.to())??.tag) != nil)  // §8.2.6.2
        // The caller's transaction ACKed the 480; Timer I (T4 on UDP) then ends the server side.
        let freedAt = await net.run(until: .seconds(40), step: .milliseconds(500)) {
            await net.a.serverTransactionCount == 0
        }
        #expect(freedAt != nil && freedAt! <= .seconds(6))
        await line.stop(within: .zero)
    }

    @Test func everyOtherRequestGetsAFinalResponseAndNoTransactionIsLeft() async throws {
        let (net, line) = await registeredLine()
        var requests: [(String, SIPRequest, Int)] = []
        for method: SIPMethod in [.bye, .notify, .info, .update] { requests.append((method.rawValue, net.request(method), 481)) }
        var reinvite = net.request(.invite)
        reinvite.headers.set(.to, "<sip:1002@127.0.0.1>;tag=gone")
        requests.append(("re-INVITE", reinvite, 481))
        requests.append(("OPTIONS", net.request(.options), 200))
        requests.append(("MESSAGE", net.request(.message), 405))  // not in Allow: the endpoint's §8.2.1 answer
        var collectors: [(String, Collector<ClientTransactionUpdate>, Int)] = []
        for (name, request, status) in requests {
            collectors.append((name, Collector(await net.b.startTransaction(request)), status))
        }
        _ = await net.run(until: .seconds(1)) { collectors.allSatisfy { finalStatus($0.1) != nil } }
        for (name, updates, status) in collectors {
            #expect(finalStatus(updates)?.statusCode == status, "\(name)")
        }
        // Non-INVITE server transactions wait Timer J (64·T1 on UDP), then end.
        let freedAt = await net.run(until: .seconds(40), step: .milliseconds(500)) {
            await net.a.serverTransactionCount == 0
        }
        #expect(freedAt != nil)
        await line.stop(within: .zero)
    }

    @Test func aCancelGets200AndItsInviteAFinalResponse() async throws {
        let (net, line) = await registeredLine()
        let invite = net.request(.invite)
        let inviteUpdates = Collector(await net.b.startTransaction(invite))
        var cancel = invite
        cancel.method = .cancel
        cancel.headers.set(.cseq, SIPCSeq(1, .cancel).description)
        let cancelUpdates = Collector(await net.b.startTransaction(cancel))
        _ = await net.run(until: .seconds(1)) { finalStatus(cancelUpdates) != nil && finalStatus(inviteUpdates) != nil }
        #expect(finalStatus(cancelUpdates)?.statusCode == 200)
        // 487 when the CANCEL overtook the line's answer, 480 when it crossed it (§9.2).
        let inviteFinal = try #require(finalStatus(inviteUpdates)?.statusCode)
        #expect(inviteFinal == 480 || inviteFinal == 487)
        let freedAt = await net.run(until: .seconds(40), step: .milliseconds(500)) {
            await net.a.serverTransactionCount == 0
        }
        #expect(freedAt != nil)
        await line.stop(within: .zero)
    }

    @Test func aLineThatTakesCallsPassesRequestsOnUnanswered() async throws {
        let net = await EndpointPair.unstarted()
        _ = TestRegistrar(endpoint: net.b, grant: 3600)
        await net.b.start()
        let (calls, feed) = AsyncStream.makeStream(of: EndpointEvent.self)
        let traffic = Collector(calls)
        let line = net.registrationLine(calls: feed)
        await line.start()
        let updates = Collector(await net.b.startTransaction(net.request(.invite)))
        let passed = await net.run(until: .seconds(1)) {
            traffic.all.contains { if case .request(let r) = $0 { r.request.method == .invite } else { false } }
                && !updates.all.isEmpty
        }
        #expect(passed != nil)
        // Only the endpoint's 100 Trying: the call layer, not the line, answers the INVITE.
        let statuses = updates.all.compactMap { if case .response(let r) = $0 { r.statusCode } else { nil } }
        #expect(statuses == [100])
        await line.stop(within: .zero)
    }
}

/// RFC 7118 §5.2: the Contact's `transport=` is `ws` on WS and WSS flows alike, in REGISTER
/// and INVITE (both build it from ``LocalBinding/contactURI(user:extra:)``).
@Suite struct ContactTransportParameterTests {
    @Test(arguments: [
        (SIPTransportProtocol.udp, nil), (.tcp, "tcp"), (.tls, "tls"), (.ws, "ws"), (.wss, "ws"),
    ] as [(SIPTransportProtocol, String?)])
    func contactTransportParameter(_ transport: SIPTransportProtocol, _ expected: String?) {
        let binding = LocalBinding(transport: transport, host: "df7jal23ls0d.invalid", port: nil)
        #expect(binding.contactURI(user: "1001").parameters["transport"] == expected)
    }
}
