import PushKitEmu
import Testing

@Suite struct ScenarioTests {
    /// Must show: dead phone fails over within the configured bound (default ≤ 3 s), and the
    /// timeline shows why (qualify timeout → push dropped → no ack → failover).
    @Test(arguments: [(Int64(2_000), Int64(500), Int64(3_000)), (1_000, 300, 1_500), (2_500, 500, 3_000)])
    func deadPhoneFailsOverWithinBound(ackWindow: Int64, qualifyTimeout: Int64, bound: Int64) {
        var scenario = BuiltInScenarios.deadPhone
        scenario.settings.ackWindowMs = ackWindow
        scenario.settings.qualifyTimeoutMs = qualifyTimeout
        scenario.settings.failoverBoundMs = bound
        let report = ScenarioRunner.run(scenario, policy: .correct)
        #expect(report.passed)
        let failover = report.timeline.compactMap { entry -> (Int64, FailoverReason, Int64)? in
            if case .failover(_, let reason, let after, _) = entry.event { (entry.t, reason, after) } else { nil }
        }
        #expect(failover.count == 1)
        #expect(failover.first?.1 == .noAck)
        #expect(failover.first?.2 == qualifyTimeout + ackWindow)
        #expect((failover.first?.2 ?? .max) <= bound)
        let names = report.timeline.map { String($0.event.jsonLine(t: $0.t).split(separator: "\"")[3]) }
        #expect(
            names == [
                "call_start", "qualify_sent", "qualify_timeout", "push_sent", "apns_dropped",
                "ack_window_expired", "failover",
            ])
    }

    @Test func defaultFailoverBoundIsAtMostThreeSecondsAndBeatsV1() {
        let settings = EmulatorSettings()
        #expect(settings.failoverBoundMs <= 3_000)
        #expect(settings.qualifyTimeoutMs + settings.ackWindowMs <= settings.failoverBoundMs)
        let report = ScenarioRunner.run(BuiltInScenarios.deadPhone, policy: .correct)
        let after = report.timeline.compactMap { if case .failover(_, _, let a, _) = $0.event { a } else { nil } }
        #expect(after == [2_500])
        #expect(after[0] < 5_000, "product v1 took 5–6 s")
    }

    /// Must show: reconnect with `apns-expiration: 0` → nothing rings after the phone is back.
    @Test(arguments: PolicyChoice.allCases)
    func reconnectWithExpirationZeroNeverRings(_ policy: PolicyChoice) {
        let scenario = BuiltInScenarios.reconnect
        #expect(scenario.server.request.expirationSeconds == 0)
        let report = ScenarioRunner.run(scenario, policy: policy)
        let online = report.timeline.first { $0.event == .connectivity(online: true) }?.t
        #expect(online == 20_000)
        #expect(report.timeline.contains { $0.event == .apnsDropped(push: 0) })
        let rings = report.timeline.filter { if case .callkitReport = $0.event { true } else { false } }
        #expect(rings.isEmpty)
        #expect(report.passed)
    }

    /// The same reconnect with a stored push: naive rings the stale call (R6), correct ends it at once.
    @Test(arguments: [(PolicyChoice.naive, true), (.correct, false)])
    func storedPushOnReconnect(_ policy: PolicyChoice, _ rings: Bool) {
        let report = ScenarioRunner.run(BuiltInScenarios.reconnectStored, policy: policy)
        #expect(report.timeline.contains { $0.event == .apnsStored(push: 0) })
        #expect(report.violations.contains { $0.kind == .staleDeliveryRang } == rings)
        let ended = report.timeline.contains { $0.event == .callkitEnd(uuid: 0, reason: .failed) && $0.t == 20_300 }
        #expect(ended == !rings)
    }

    /// The naive PushKit session: duplicate call and a ~10 s answer delay; correct answers at once.
    @Test(arguments: [(PolicyChoice.naive, Int64(10_000)), (.correct, 0)])
    func answerDelay(_ policy: PolicyChoice, _ atLeast: Int64) {
        let report = ScenarioRunner.run(BuiltInScenarios.answerBeforeInvite, policy: policy)
        let delay = report.timeline.compactMap { if case .callConnected(_, let d) = $0.event { d } else { nil } }
        #expect(delay.count == 1)
        #expect(delay[0] >= atLeast)
        if policy == .correct { #expect(delay[0] < 1_000) }
        #expect(report.violations.contains { $0.kind == .duplicateSession } == (policy == .naive))
    }

    /// Every built-in passes with the correct policy and meets its expected outcomes.
    @Test(arguments: BuiltInScenarios.all)
    func builtInPassesWithCorrectPolicy(_ scenario: Scenario) {
        let report = ScenarioRunner.run(scenario, policy: .correct)
        #expect(report.violations.isEmpty, "\(report.violations.map(\.kind))")
        #expect(report.expectationMet, "\(report.outcomes)")
    }

    @Test func runsAreDeterministic() {
        for scenario in BuiltInScenarios.all {
            let a = ScenarioRunner.run(scenario, policy: .naive, seed: 7)
            let b = ScenarioRunner.run(scenario, policy: .naive, seed: 7)
            #expect(a.timeline.map { $0.event.jsonLine(t: $0.t) } == b.timeline.map { $0.event.jsonLine(t: $0.t) })
        }
    }

    /// A killed R1 breaker loses its ringing calls; R2 blackout drops the real call's push.
    @Test func strikeOutTimeline() {
        let report = ScenarioRunner.run(BuiltInScenarios.strikeOut, policy: .naive)
        let kills = report.timeline.compactMap { if case .appKilled(let s) = $0.event { s } else { nil } }
        #expect(kills == [1, 2, 3])
        #expect(report.timeline.contains { $0.event == .blackout(strikes: 3) })
        #expect(report.timeline.contains { $0.event == .pushSuppressed(push: 3) })
        #expect(report.outcomes == [.failedOver])
    }

    /// Locked phone: AfterFirstUnlock credentials register from the lock screen; `whenUnlocked`
    /// ones are denied, so no REGISTER reaches the server and it fails over after the wait.
    @Test(arguments: [(ReferencePolicy.Faults(), CallOutcome.connected), (.credentialsWhenUnlocked, .failedOver)])
    func lockedKeychain(_ faults: ReferencePolicy.Faults, _ outcome: CallOutcome) {
        let report = ScenarioRunner.run(BuiltInScenarios.locked, policy: ReferencePolicy(faults: faults))
        #expect(report.outcomes == [outcome])
        #expect(report.timeline.contains { $0.event == .keychainDenied } == (outcome == .failedOver))
        #expect(report.violations.isEmpty)
    }

    /// Expiry clamp on the wire: the reference client asks 600 s, the server grants 300.
    @Test func registerIsClamped() {
        let report = ScenarioRunner.run(BuiltInScenarios.killed, policy: .correct)
        #expect(report.timeline.contains { $0.event == .registerReceived(granted: 300) })
    }

    /// The v2 gap and the `gone_notice` option: the caller leaves after the ack, before the
    /// INVITE. Without the notice the placeholder rings until its timeout (the phone cannot know);
    /// with it the call ends 40 ms after the hang-up.
    @Test(arguments: [(true, Int64(2_040), EndReason.remoteEnded), (false, 11_950, .failed)])
    func goneNoticeEndsThePlaceholder(_ notice: Bool, _ endedAt: Int64, _ reason: EndReason) {
        var scenario = BuiltInScenarios.cancelAfterAck
        scenario.server.goneNotice = notice
        let report = ScenarioRunner.run(scenario, policy: .correct)
        #expect(report.passed)
        let end = report.timeline.first { if case .callkitEnd(0, _) = $0.event { true } else { false } }
        #expect(end?.t == endedAt)
        #expect(end?.event == .callkitEnd(uuid: 0, reason: reason))
    }
}
