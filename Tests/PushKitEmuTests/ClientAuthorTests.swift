import PushKitEmu
import Testing

/// What a client author in another language reads from the emulator: errors in the wire's words,
/// `report`s that stand for nothing named as bugs, and the built-in for "answered, then gone".
@Suite struct ClientAuthorTests {
    static let push = VoIPPush(pushID: 0, call: 0, content: .call, origin: .known, sentAt: 0, mustReport: nil)

    /// The bridge after a `push` callback for push 0 and an `invite` callback for call 1: the
    /// answer to the invite, with its fault if any.
    static func answerToInvite(_ answer: String) -> ClientFault? {
        var bridge = ClientBridge()
        var ctx = ClientContext()
        _ = bridge.line(for: .push(push), ctx)
        _ = bridge.line(for: .invite(IncomingInvite(call: 1, pushID: -1)), ctx)
        do throws(ClientFault) {
            try bridge.apply(answer: Array(answer.utf8), to: &ctx, callback: "invite")
            return nil
        } catch {
            return error
        }
    }

    /// Must show: a `report` with both `push_id` and `invite`, or for a push-id (or INVITE) the
    /// process was never told about, is a named client bug; the ones that stand for something
    /// pass (a negative id is "none", as the `invite` callback spells a direct ring).
    @Test(arguments: [
        (#"{"ops":[{"op":"report","uuid":"A","push_id":0,"invite":1}]}"#, "push_id 0 and invite 1 both given"),
        (#"{"ops":[{"op":"report","uuid":"A","push_id":7}]}"#, "push_id 7 was never delivered to this process"),
        (#"{"ops":[{"op":"report","uuid":"A","invite":5}]}"#, "invite 5 is not an INVITE this process received"),
        (#"{"ops":[{"op":"report","uuid":"A","push_id":-1,"invite":-1}]}"#, "needs push_id (a push) or invite"),
        (#"{"ops":[{"op":"report","uuid":"A","push_id":0}]}"#, ""),
        (#"{"ops":[{"op":"report","uuid":"A","push_id":-1,"invite":1}]}"#, ""),
    ])
    func reportsThatStandForNothingAreBugs(_ answer: String, _ says: String) {
        let fault = Self.answerToInvite(answer)
        if says.isEmpty {
            #expect(fault == nil, "\(fault?.detail ?? "")")
        } else {
            #expect(fault?.kind == .badAnswer)
            #expect(fault?.detail.contains(says) == true, "\(fault?.detail ?? "accepted")")
        }
    }

    /// Must show: a value of the wrong type is named by the wire's field and JSON's type words
    /// (`ops.0.after_ms`, "an integer"), not the emulator's Swift (`afterMs`, `Int64`) — in a
    /// client answer and in a scenario file.
    @Test func typeErrorsNameTheWireFields() throws {
        let fault = try #require(
            Self.answerToInvite(#"{"ops":[{"op":"fetch"},{"op":"start_timer","timer":"t","after_ms":"5"}]}"#))
        #expect(fault.detail.contains("ops.1.after_ms: expected an integer, found a string"), "\(fault.detail)")
        #expect(!fault.detail.contains("afterMs") && !fault.detail.contains("Int64"), "\(fault.detail)")
        let big = try #require(Self.answerToInvite(#"{"ops":[{"op":"ack","push_id":99999999999}]}"#))
        #expect(big.detail.contains("ops.0.push_id"), "\(big.detail)")
        #expect(!big.detail.contains("Int32") && !big.detail.contains("pushId"), "\(big.detail)")
        do {
            _ = try Scenario.decode(json: Array(#"{"settings":{"ack_window_ms":"x"},"steps":[]}"#.utf8))
            Issue.record("accepted a string for ack_window_ms")
        } catch {
            #expect(error.reason.contains("settings.ack_window_ms: expected an integer"), "\(error.reason)")
        }
    }

    /// The correct policy with one bug: when the caller is gone it ends the call but leaves the
    /// answer action the user started open (drops the `fail`).
    struct EndsButLeavesTheAnswerOpen: PushClientPolicy {
        var inner = ReferencePolicy.correct()
        var name: String { "ends-but-leaves-the-answer-open" }
        mutating func launched(_ ctx: inout ClientContext) { inner.launched(&ctx) }
        mutating func didReceiveIncomingPush(_ push: VoIPPush, _ ctx: inout ClientContext) {
            inner.didReceiveIncomingPush(push, &ctx)
        }
        mutating func didReceiveAckResponse(pushID: Int32, callActive: Bool, _ ctx: inout ClientContext) {
            var scratch = ctx
            inner.didReceiveAckResponse(pushID: pushID, callActive: callActive, &scratch)
            for op in scratch.ops {
                if case .failAnswer = op { continue }
                ctx.perform(op)
            }
        }
        mutating func didReceiveCallGone(pushID: Int32, _ ctx: inout ClientContext) {
            inner.didReceiveCallGone(pushID: pushID, &ctx)
        }
        mutating func didUpdatePushToken(_ ctx: inout ClientContext) { inner.didUpdatePushToken(&ctx) }
        mutating func didInvalidatePushToken(_ ctx: inout ClientContext) { inner.didInvalidatePushToken(&ctx) }
        mutating func registrationFinished(success: Bool, _ ctx: inout ClientContext) {
            inner.registrationFinished(success: success, &ctx)
        }
        mutating func didReceiveInvite(_ invite: IncomingInvite, _ ctx: inout ClientContext) {
            inner.didReceiveInvite(invite, &ctx)
        }
        mutating func didReceiveCancel(call: Int32, _ ctx: inout ClientContext) { inner.didReceiveCancel(call: call, &ctx) }
        mutating func performAnswerCallAction(uuid: Int32, _ ctx: inout ClientContext) {
            inner.performAnswerCallAction(uuid: uuid, &ctx)
        }
        mutating func performEndCallAction(uuid: Int32, _ ctx: inout ClientContext) {
            inner.performEndCallAction(uuid: uuid, &ctx)
        }
        mutating func timerFired(_ timer: PolicyTimer, _ ctx: inout ClientContext) { inner.timerFired(timer, &ctx) }
        mutating func connectivityChanged(online: Bool, _ ctx: inout ClientContext) {
            inner.connectivityChanged(online: online, &ctx)
        }
    }

    /// Must show: the built-in "user tapped Answer, then the ack says the caller left" passes
    /// the correct policy (answer failed, call ended `remoteEnded`: cancelled) and catches a
    /// client that ends the call but leaves the answer action open (R5 answer_action_timed_out),
    /// under ideal delivery and over field seeds.
    @Test func answerThenGoneCatchesAnOpenAnswerAction() throws {
        let scenario = try #require(BuiltInScenarios.named("answer-then-gone"))
        let correct = ScenarioRunner.run(scenario, policy: .correct)
        #expect(correct.passed, "\(correct.violations)")
        #expect(correct.outcomes == [.cancelled])
        #expect(correct.timeline.contains { if case .answerFailed = $0.event { true } else { false } })
        let buggy = ScenarioRunner.run(scenario, policy: EndsButLeavesTheAnswerOpen())
        #expect(buggy.violations.map(\.kind) == [.answerActionTimedOut])
        let field = ScenarioRunner.runField(
            DeliveryModel.field.apply(to: scenario), source: PolicyChoice.correct, seed: 1, runs: 20)
        #expect(field.passed, "\(field)")
        let buggyField = ScenarioRunner.runField(
            DeliveryModel.field.apply(to: scenario),
            source: PolicyMaker(name: "open") { _ in EndsButLeavesTheAnswerOpen() }, seed: 1, runs: 20)
        #expect(buggyField.kinds.contains("answer_action_timed_out"))
        #expect(!ScenarioRunner.run(scenario, policy: .naive).passed)
    }
}
