import PushKitEmu
import PushSimCommand
import Testing

/// A client that fails stops `check` at once, with one line saying where (the protocol itself is
/// PushKitEmuTests.ClientProtocolTests).
@Suite struct ClientFaultCheckTests {
    /// A policy that fails a callback stops the run with one CLIENT violation at that moment.
    @Test func clientFaultStopsTheRunWithACLIENTViolation() {
        struct Broken: PolicySource {
            var name: String { "broken" }
            func policy(for scenario: Scenario) -> FailingPolicy { FailingPolicy() }
        }
        struct FailingPolicy: PushClientPolicy {
            var name: String { "broken" }
            mutating func launched(_ ctx: inout ClientContext) {}
            mutating func didReceiveIncomingPush(_ push: VoIPPush, _ ctx: inout ClientContext) {
                ctx.perform(.fetch)
                ctx.fail(ClientFault(.noAnswer, "no answer to push within 5 ms"))
            }
            mutating func didReceiveAckResponse(pushID: Int32, callActive: Bool, _ ctx: inout ClientContext) {}
            mutating func didReceiveCallGone(pushID: Int32, _ ctx: inout ClientContext) {}
            mutating func didUpdatePushToken(_ ctx: inout ClientContext) {}
            mutating func didInvalidatePushToken(_ ctx: inout ClientContext) {}
            mutating func registrationFinished(success: Bool, _ ctx: inout ClientContext) {}
            mutating func didReceiveInvite(_ invite: IncomingInvite, _ ctx: inout ClientContext) {}
            mutating func didReceiveCancel(call: Int32, _ ctx: inout ClientContext) {}
            mutating func performAnswerCallAction(uuid: Int32, _ ctx: inout ClientContext) {}
            mutating func performEndCallAction(uuid: Int32, _ ctx: inout ClientContext) {}
            mutating func timerFired(_ timer: PolicyTimer, _ ctx: inout ClientContext) {}
            mutating func connectivityChanged(online: Bool, _ ctx: inout ClientContext) {}
        }
        let out = PushSimCommand.check(source: Broken(), seed: 1, format: .json)
        #expect(out.exitCode == 1)
        // killed (the first built-in) fails and the check stops there.
        #expect(out.stdout.count == 2)
        #expect(out.stdout[0].contains(#""rules":["CLIENT"]"#))
        #expect(out.stdout[0].contains(#""kinds":["client_no_answer"]"#))
        #expect(out.stdout[1].contains(#""client_error":"no answer to push within 5 ms""#))
        // One line: what the client did and where the check stopped (not "broke CLIENT in 1 of 1").
        #expect(out.stderr == ["client 'broken': no answer to push within 5 ms (check stopped in killed, scenario 1 of \(2 * BuiltInScenarios.all.count))"])
    }
}
