import PushKitEmu
import Synchronization
import Testing

/// The client protocol without processes: the emulator's ``ClientBridge`` talking line by line
/// to a ``ClientProtocolServer`` session in memory. Every line crosses as text, so this checks
/// the whole codec; the process side (socket, timeouts, a client that dies) is in
/// PushKitLiveTests.ClientProcessTests.
@Suite struct ClientProtocolTests {
    /// A "client process" in memory: the server half of the protocol, kept across the emulated
    /// app's deaths (like a process that `launched` resets), with every line it saw.
    final class Loopback: Sendable {
        let session: Mutex<ClientProtocolServer<ReferencePolicy>.Session>
        let transcript = Mutex<[String]>([])
        init(_ choice: PolicyChoice) {
            session = Mutex(.init(server: ClientProtocolServer(name: choice.rawValue) { choice.policy($0) }))
            _ = exchange(ClientBridge.helloLine(mode: "virtual"))
        }
        func exchange(_ line: String) -> [UInt8] {
            let answer = session.withLock { (try? $0.answer(Array(line.utf8))) ?? "junk" }
            transcript.withLock { $0 += [line, answer] }
            return Array(answer.utf8)
        }
    }

    struct LoopbackPolicy: PushClientPolicy {
        let client: Loopback
        var bridge = ClientBridge()
        var name: String { "loopback" }
        mutating func call(_ callback: ClientCallback, _ ctx: inout ClientContext) {
            let answer = client.exchange(bridge.line(for: callback, ctx))
            do throws(ClientFault) {
                try bridge.apply(answer: answer, to: &ctx, callback: callback.wireName)
            } catch {
                ctx.fail(error)
            }
        }
        mutating func launched(_ ctx: inout ClientContext) { call(.launched, &ctx) }
        mutating func didReceiveIncomingPush(_ push: VoIPPush, _ ctx: inout ClientContext) { call(.push(push), &ctx) }
        mutating func didReceiveAckResponse(pushID: Int32, callActive: Bool, _ ctx: inout ClientContext) {
            call(.ackResponse(pushID: pushID, callActive: callActive), &ctx)
        }
        mutating func didReceiveCallGone(pushID: Int32, _ ctx: inout ClientContext) {
            call(.callGone(pushID: pushID), &ctx)
        }
        mutating func didReceiveCallKeys(_ keys: [GatewayCallKey], _ ctx: inout ClientContext) {
            call(.callKeys(keys), &ctx)
        }
        mutating func didUpdatePushToken(_ ctx: inout ClientContext) { call(.tokenUpdated, &ctx) }
        mutating func didInvalidatePushToken(_ ctx: inout ClientContext) { call(.tokenInvalidated, &ctx) }
        mutating func registrationFinished(success: Bool, _ ctx: inout ClientContext) {
            call(.registrationFinished(success: success), &ctx)
        }
        mutating func didReceiveInvite(_ invite: IncomingInvite, _ ctx: inout ClientContext) {
            call(.invite(invite), &ctx)
        }
        mutating func didReceiveCancel(call c: Int32, _ ctx: inout ClientContext) { call(.cancel(call: c), &ctx) }
        mutating func performAnswerCallAction(uuid: Int32, _ ctx: inout ClientContext) {
            call(.answerAction(uuid: uuid), &ctx)
        }
        mutating func performEndCallAction(uuid: Int32, _ ctx: inout ClientContext) {
            call(.endAction(uuid: uuid), &ctx)
        }
        mutating func timerFired(_ timer: PolicyTimer, _ ctx: inout ClientContext) { call(.timer(timer), &ctx) }
        mutating func connectivityChanged(online: Bool, _ ctx: inout ClientContext) {
            call(.connectivity(online: online), &ctx)
        }
    }

    struct LoopbackSource: PolicySource {
        let client: Loopback
        var name: String { "loopback" }
        func policy(for scenario: Scenario) -> LoopbackPolicy {
            _ = client.exchange(ClientBridge.resetLine(scenario: scenario.name, settings: scenario.settings))
            return LoopbackPolicy(client: client)
        }
    }

    static func lines(_ report: ScenarioReport) -> [String] { report.timeline.map { $0.event.jsonLine(t: $0.t) } }

    /// Over the protocol, every built-in gives the in-process timeline, for both presets, under
    /// the ideal model and under field delivery (5 seeds).
    @Test(arguments: PolicyChoice.allCases)
    func protocolGivesTheInProcessTimeline(_ choice: PolicyChoice) {
        let client = Loopback(choice)
        let source = LoopbackSource(client: client)
        for builtIn in BuiltInScenarios.all {
            for (delivery, seeds) in [(DeliveryModel.ideal, [UInt64(1)]), (.field, [2, 3, 5, 8, 13])] {
                let scenario = delivery.apply(to: builtIn)
                for seed in seeds {
                    let direct = ScenarioRunner.run(scenario, policy: choice, seed: seed)
                    let remote = ScenarioRunner.run(scenario, source: source, seed: seed)
                    #expect(Self.lines(remote) == Self.lines(direct), "\(builtIn.name) \(delivery) seed \(seed)")
                    #expect(remote.violations == direct.violations)
                    #expect(remote.clientFailure == nil)
                }
            }
        }
        #expect(client.transcript.withLock { $0.count } > 100)
    }

    /// The documented worked transcript (docs/pushkit-emulator.md) is what the killed scenario
    /// sends and receives.
    @Test func killedTranscriptStartsAsDocumented() {
        let client = Loopback(.correct)
        _ = ScenarioRunner.run(BuiltInScenarios.killed, source: LoopbackSource(client: client))
        let t = client.transcript.withLock { $0 }
        #expect(t[0] == #"{"callback":"hello","protocol":"astra-pushsim-client","version":1,"mode":"virtual"}"#)
        #expect(t[1] == #"{"hello":"astra-pushsim-client","version":1,"name":"correct"}"#)
        #expect(t[2].hasPrefix(#"{"callback":"reset","scenario":"killed","settings":{"ack_window_ms":2000,"#))
        #expect(t[3] == #"{"ops":[]}"#)
        #expect(t[4] == #"{"callback":"launched","t":1950,"app_state":"background","locked":false,"online":true}"#)
        #expect(t[6] == #"{"callback":"token_updated","t":1950,"app_state":"background","locked":false,"online":true}"#)
        #expect(t[7] == #"{"ops":[{"op":"upload_token"}]}"#)
        #expect(
            t[8]
                == #"{"callback":"push","t":1950,"app_state":"background","locked":false,"online":true,"push":{"push_id":0,"call":0,"content":"call","origin":"known","sent_at":1000}}"#
        )
        #expect(
            t[9]
                == #"{"ops":[{"op":"ack","push_id":0},{"op":"report","uuid":"0","push_id":0},{"op":"start_timer","timer":"placeholder:0","after_ms":10000},{"op":"register","keychain":"afterFirstUnlock"}]}"#
        )
    }

    static func apply(_ answer: String) -> Result<[ClientOp], ClientFault> {
        var bridge = ClientBridge()
        var ctx = ClientContext()
        do throws(ClientFault) {
            try bridge.apply(answer: Array(answer.utf8), to: &ctx, callback: "push")
            return .success(ctx.ops)
        } catch {
            return .failure(error)
        }
    }

    /// Junk, wrong shapes, unknown ops and values, huge numbers, too many ops: each is one clear
    /// `client_bad_answer` fault naming the callback, and no op is recorded.
    @Test(arguments: [
        "", "not json", "[]", "{}", #"{"ops":3}"#, #"{"ops":[{"op":"dance"}]}"#, #"{"ops":[{"op":"ack"}]}"#,
        #"{"ops":[{"op":"ack","push_id":99999999999}]}"#, #"{"ops":[{"op":"ack","push_id":"7"}]}"#,
        #"{"ops":[{"op":"end","uuid":"a","reason":"bored"}]}"#, #"{"ops":[{"op":"report","uuid":"a"}]}"#,
        #"{"ops":[{"op":"report","uuid":"","push_id":0}]}"#,
        #"{"ops":[{"op":"start_timer","timer":"t","after_ms":-1}]}"#,
        #"{"ops":[{"op":"register","keychain":"always"}]}"#,
        #"{"ops":[{"op":"ack","push_id":0},{"op":"bogus"}]}"#,
        "{\"ops\":[" + Array(repeating: #"{"op":"fetch"}"#, count: 257).joined(separator: ",") + "]}",
        "{\"ops\":[{\"op\":\"report\",\"uuid\":\"" + String(repeating: "u", count: 129) + "\",\"push_id\":0}]}",
    ])
    func badAnswersAreFaults(_ answer: String) {
        guard case .failure(let fault) = Self.apply(answer) else {
            Issue.record("accepted \(answer.prefix(60))")
            return
        }
        #expect(fault.kind == .badAnswer)
        #expect(fault.detail.hasPrefix("answer to push"))
        #expect(!fault.detail.contains("\n"))
        #expect(fault.detail.count < 400)
    }

    /// The client's own UUID strings map to emulator UUIDs and back; unknown ones name no call.
    @Test func uuidsAndTimersAreTheClientsOwn() throws {
        var bridge = ClientBridge()
        var ctx = ClientContext()
        let uuid = "6F1D2C3B-0000-4000-8000-00000000CAFE"
        _ = bridge.line(
            for: .push(VoIPPush(pushID: 0, call: 0, content: .call, origin: .known, sentAt: 0, mustReport: nil)), ctx)
        try bridge.apply(
            answer: Array(
                #"{"ops":[{"op":"report","uuid":"\#(uuid)","push_id":0},{"op":"end","uuid":"nobody","reason":"failed"},{"op":"start_timer","timer":"ph-\#(uuid)","after_ms":10000}]}"#
                    .utf8), to: &ctx, callback: "push")
        #expect(
            ctx.ops == [
                .reportNewIncomingCall(uuid: 0, pushID: 0, invite: -1), .reportCallEnded(uuid: -1, reason: .failed),
                .startTimer(.named(0), afterMs: 10_000),
            ])
        let answer = bridge.line(for: .answerAction(uuid: 0), ctx)
        #expect(answer.contains(#""uuid":"\#(uuid)""#))
        #expect(bridge.line(for: .timer(.named(0)), ctx).contains(#""timer":"ph-\#(uuid)""#))
    }

    /// A wrong hello or version is refused with the reason.
    @Test(arguments: [
        (#"{"hello":"astra-pushsim-client","version":2}"#, "version 2"), (#"{"ops":[]}"#, "expected"),
        ("hi", "not JSON"),
    ])
    func badHelloIsRefused(_ line: String, _ says: String) {
        #expect {
            _ = try ClientBridge.readHello(Array(line.utf8))
        } throws: { error in
            (error as? ClientFault)?.detail.contains(says) == true
        }
    }
}
