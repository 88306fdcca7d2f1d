import PushKitEmu
import Testing

/// Sealed pushes in virtual time: the phone's own verdict on each one, the client held to it
/// (R5 `sealed_caller_shown`, `sealed_push_trusted`), and the codec of `call_keys` and the
/// sealed push object.
@Suite struct PhoneSealedPushTests {
    static let faults: [(String, SealVerdict)] = [
        ("sealed-unknown-gateway", .unknownGateway), ("sealed-wrong-call-id", .unopenable),
        ("sealed-tampered", .unopenable), ("sealed-missing-key", .missingKey), ("sealed-late", .late),
    ]

    static func verdicts(_ report: ScenarioReport) -> [SealVerdict] {
        report.timeline.compactMap { if case .sealCheck(_, let v) = $0.event { v } else { nil } }
    }

    static func shown(_ report: ScenarioReport) -> [Int32] {
        report.timeline.compactMap { if case .callerShown(let uuid) = $0.event { uuid } else { nil } }
    }

    /// The correct client reports the bad push as the app, ends it at once, then opens the real
    /// call's caller and shows it.
    @Test(arguments: faults)
    func correctClientEndsTheUntrustedPushAndShowsTheRealCaller(_ name: String, _ verdict: SealVerdict) throws {
        let scenario = try #require(BuiltInScenarios.named(name))
        #expect(scenario.server.sealed)
        let report = ScenarioRunner.run(scenario, policy: .correct)
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.outcomes == [.connected])
        #expect(Self.verdicts(report) == [verdict, .opened])
        // Push 0 (the bad one) was reported and ended `failed` in the same step; no caller shown on it.
        let report0 = try #require(report.timeline.first { $0.event == .callkitReport(uuid: 0, call: -1, push: 0) })
        #expect(report.timeline.contains { $0.event == .callkitEnd(uuid: 0, reason: .failed) && $0.t == report0.t })
        #expect(Self.shown(report) == [1])
        #expect(!report.timeline.contains { $0.event == .ackSent(push: 0) })
    }

    /// A client that trusts every sealed push shows a caller it could not open and rings it:
    /// both R5 violations, on the bad push only; nothing else is broken.
    @Test(arguments: faults)
    func trustingClientIsCaught(_ name: String, _ verdict: SealVerdict) throws {
        let scenario = try #require(BuiltInScenarios.named(name))
        let policy = ReferencePolicy(faults: .trustSealedPushes)
        let report = ScenarioRunner.run(scenario, policy: policy)
        // The trusted push registered the phone, so the real call rings it directly (no push).
        #expect(Self.verdicts(report).first == verdict)
        let kinds = report.violations.map(\.kind)
        #expect(kinds.contains(.sealedCallerShown))
        #expect(kinds.contains(.sealedPushTrusted))
        #expect(report.violations.filter { $0.kind == .sealedCallerShown || $0.kind == .sealedPushTrusted }.allSatisfy {
            $0.push == 0
        })
        #expect(report.rulesBroken == [.r5])
        #expect(!report.passed)
    }

    /// The good sealed call passes for both: only a push that failed a check is held against a client.
    @Test(arguments: [ReferencePolicy.Faults(), .trustSealedPushes])
    func goodSealedCallOpensAndConnects(_ faults: ReferencePolicy.Faults) {
        let report = ScenarioRunner.run(BuiltInScenarios.sealedCall, policy: ReferencePolicy(faults: faults))
        #expect(report.passed, "\(report.violations)")
        #expect(Self.verdicts(report) == [.opened])
        #expect(Self.shown(report) == [0])
    }

    /// A client that ignores its call keys cannot open anything: it must (and the correct path
    /// does) end even the good call's push — so the call fails over rather than ring unverified.
    @Test func withoutKeysNothingOpens() {
        struct NoKeys: PushClientPolicy {
            var inner = ReferencePolicy.correct()
            var name: String { "no-keys" }
            mutating func launched(_ ctx: inout ClientContext) { inner.launched(&ctx) }
            mutating func didReceiveIncomingPush(_ push: VoIPPush, _ ctx: inout ClientContext) {
                inner.didReceiveIncomingPush(push, &ctx)
            }
            mutating func didReceiveAckResponse(pushID: Int32, callActive: Bool, _ ctx: inout ClientContext) {}
            mutating func didReceiveCallGone(pushID: Int32, _ ctx: inout ClientContext) {}
            mutating func didUpdatePushToken(_ ctx: inout ClientContext) { inner.didUpdatePushToken(&ctx) }
            mutating func didInvalidatePushToken(_ ctx: inout ClientContext) {}
            mutating func registrationFinished(success: Bool, _ ctx: inout ClientContext) {}
            mutating func didReceiveInvite(_ invite: IncomingInvite, _ ctx: inout ClientContext) {
                inner.didReceiveInvite(invite, &ctx)
            }
            mutating func didReceiveCancel(call: Int32, _ ctx: inout ClientContext) {}
            mutating func performAnswerCallAction(uuid: Int32, _ ctx: inout ClientContext) {}
            mutating func performEndCallAction(uuid: Int32, _ ctx: inout ClientContext) {}
            mutating func timerFired(_ timer: PolicyTimer, _ ctx: inout ClientContext) {}
            mutating func connectivityChanged(online: Bool, _ ctx: inout ClientContext) {}
        }
        let report = ScenarioRunner.run(BuiltInScenarios.sealedCall, policy: NoKeys())
        #expect(Self.verdicts(report) == [.opened])
        #expect(Self.shown(report).isEmpty)
        #expect(report.violations.isEmpty)
        #expect(report.outcomes == [.failedOver])
    }

    /// GRANT: when iOS takes the token back the app tells its gateways to stop, in that same
    /// callback — while running, or at the launch that delivers a change made while it was not.
    @Test(arguments: [AppState.foreground, .killed])
    func tokenLossStopsTheGrants(_ start: AppState) {
        var scenario = BuiltInScenarios.sealedTokenRevoked
        if start == .killed {
            scenario.phone.app = .killed
            scenario.phone.registered = false
            scenario.steps = [ScenarioStep(at: 1_000, .invalidateToken), ScenarioStep(at: 2_000, .app, state: .foreground)]
            scenario.expect = []
        }
        let correct = ScenarioRunner.run(scenario, policy: .correct)
        #expect(correct.passed, "\(correct.violations)")
        let stopped = correct.timeline.filter { $0.event == .grantsStopped }.map(\.t)
        #expect(stopped == [start == .killed ? 2_000 : 1_000])
        let keeping = ScenarioRunner.run(scenario, policy: ReferencePolicy(faults: .keepGrantsOnTokenLoss))
        #expect(keeping.violations.map(\.kind) == [.grantsNotStopped])
        #expect(keeping.rulesBroken == [.grant])
        // A phone that joined no sealing gateway owes no stop.
        var clear = scenario
        clear.server.sealed = false
        #expect(ScenarioRunner.run(clear, policy: ReferencePolicy(faults: .keepGrantsOnTokenLoss)).violations.isEmpty)
    }

    /// The phone's verdict, step by step, with the stand-in sealing.
    @Test func keychainJudgesHashKeyCallIDAndEndTime() {
        let sealing = SymbolicSealBox()
        let key = [UInt8](repeating: 7, count: 32)
        var keychain = CallKeychain()
        keychain.join("gw-a", key: key, sealing: sealing)
        keychain.join("gw-b", key: [UInt8](repeating: 9, count: 32), sealing: sealing, keyPresent: false)
        #expect(keychain.appKeys.map(\.gatewayHash) == [sealing.gatewayHash(key: key, gatewayID: "gw-a")])
        let plain = CallKeychain.callerPlaintext(user: "1001", name: "Ward 3", endMs: 10_000)
        let blob = sealing.seal(plain, key: key, callID: "c1", nonce: [UInt8](repeating: 1, count: 12))
        #expect(blob.count == 412)
        let hash = keychain.gateways[0].hash
        let good = SealedPush(gatewayHash: hash, endMs: 20_000, callID: "c1", blob: blob)
        #expect(keychain.judge(good, now: 9_999, sealing: sealing) == .opened)
        #expect(keychain.judge(good, now: 10_000, sealing: sealing) == .late)
        var other = good
        other.callID = "c2"
        #expect(keychain.judge(other, now: 0, sealing: sealing) == .unopenable)
        var changed = good
        changed.blob[100] ^= 0x40
        #expect(keychain.judge(changed, now: 0, sealing: sealing) == .unopenable)
        var stranger = good
        stranger.gatewayHash = "00"
        #expect(keychain.judge(stranger, now: 0, sealing: sealing) == .unknownGateway)
        var lost = good
        lost.gatewayHash = keychain.gateways[1].hash
        #expect(keychain.judge(lost, now: 0, sealing: sealing) == .missingKey)
        #expect(sealing.open(blob, key: [UInt8](repeating: 8, count: 32), callID: "c1") == nil)
        #expect(sealing.open(blob, key: key, callID: "c1") == plain)
    }

    /// `call_keys` and the sealed push cross the protocol as text and come back the same; a
    /// client session of the correct policy then shows the caller of the push that opens.
    @Test func callKeysAndSealedPushCrossTheProtocol() throws {
        let sealing = SymbolicSealBox()
        let key = (0..<32).map { UInt8($0) }
        let hash = sealing.gatewayHash(key: key, gatewayID: "gw")
        let plain = CallKeychain.callerPlaintext(user: "1001", name: "Ward 3", endMs: 50_000)
        let sealed = SealedPush(
            gatewayHash: hash, endMs: 50_000, callID: "call-0@pushsim.invalid",
            blob: sealing.seal(plain, key: key, callID: "call-0@pushsim.invalid", nonce: [UInt8](repeating: 3, count: 12)))
        let push = VoIPPush(pushID: 0, call: 0, content: .call, origin: .known, sentAt: 1_000, mustReport: nil, sealed: sealed)
        var bridge = ClientBridge()
        var ctx = ClientContext()
        let keysLine = bridge.line(for: .callKeys([GatewayCallKey(gatewayHash: hash, key: key)]), ctx)
        #expect(keysLine.contains(#""callback":"call_keys""#))
        #expect(keysLine.contains(#""sealing":"symbolic""#))
        let pushLine = bridge.line(for: .push(push), ctx)
        #expect(pushLine.contains(#""gateway_hash":"\#(hash)""#))
        #expect(!pushLine.contains("Ward"))
        var session = ClientProtocolServer<ReferencePolicy>.Session(
            server: ClientProtocolServer(name: "correct") { .correct($0) })
        _ = try session.answer(Array(ClientBridge.resetLine(scenario: "x", settings: EmulatorSettings()).utf8))
        _ = try session.answer(Array(keysLine.utf8))
        let answer = try session.answer(Array(pushLine.utf8))
        try bridge.apply(answer: Array(answer.utf8), to: &ctx, callback: "push")
        #expect(ctx.ops.contains(.showCaller(uuid: 0)))
        #expect(ctx.ops.contains(.ackPush(pushID: 0)))
        // The same push with one blob byte changed: reported, ended, nothing shown, no ack.
        var bad = push
        bad.pushID = 1
        bad.sealed?.blob[20] ^= 1
        let badAnswer = try session.answer(Array(bridge.line(for: .push(bad), ctx).utf8))
        #expect(badAnswer.contains(#""op":"end""#))
        #expect(!badAnswer.contains("show_caller"))
        #expect(!badAnswer.contains(#""op":"ack""#))
    }
}
