import PushKitEmu
import Testing

/// Call grants in virtual time (``CallGrant``, rule GRANT): the phone asks 14 days, renews at a
/// launch once less than 7 days remain, never within 15 minutes of the last grant, never more
/// than 15 days; a grant that runs out stops the gateway's pushes.
@Suite struct GrantRenewalTests {
    static let day = CallGrant.dayMs

    static func renewals(_ report: ScenarioReport) -> [Int64] {
        report.timeline.compactMap { if case .grantRenewed = $0.event { $0.t } else { nil } }
    }

    static func kinds(_ report: ScenarioReport) -> [ViolationKind] { report.violations.map(\.kind) }

    /// Days pass: the correct policy renews exactly once, at the day-8 launch, and its sealed call rings.
    @Test func correctPolicyRenewsOnceWhenLessThanSevenDaysRemain() {
        let report = ScenarioRunner.run(BuiltInScenarios.sealedGrantRenewal, policy: .correct)
        #expect(report.passed, "\(report.violations)")
        #expect(Self.renewals(report) == [8 * Self.day])
        #expect(report.outcomes == [.connected])
        let renewed = report.timeline.compactMap {
            if case .grantRenewed(let s, let expires) = $0.event { [Int64(s), expires] } else { nil }
        }
        #expect(renewed == [[1_209_600, 8 * Self.day + CallGrant.askLifetimeMs]])
    }

    /// Never renewing: the launch on day 8 owed a renewal, so the run ends with `grant_not_renewed`.
    @Test func neverRenewingIsFlaggedAtTheEndOfTheRun() {
        let report = ScenarioRunner.run(
            BuiltInScenarios.sealedGrantRenewal, policy: ReferencePolicy(faults: .neverRenewGrants))
        #expect(Self.kinds(report) == [.grantNotRenewed])
        #expect(report.rulesBroken == [.grant])
        #expect(report.outcomes == [.connected])
    }

    /// Renewing at every launch: the relaunch 5 minutes after the day-8 renewal is a storm, and
    /// so is the push's cold launch 2 minutes later.
    @Test func renewingEveryLaunchIsAStorm() {
        let report = ScenarioRunner.run(
            BuiltInScenarios.sealedGrantRenewal, policy: ReferencePolicy(faults: .renewGrantsEveryLaunch))
        #expect(Self.renewals(report).count == 4)
        #expect(Set(Self.kinds(report)) == [.grantStorm])
        #expect(Self.kinds(report).count == 2)
        #expect(report.rulesBroken == [.grant])
    }

    /// Asking 30 days: the gateway refuses, the old grant stays and expires; `grant_too_long`.
    @Test func grantsLongerThanFifteenDaysAreRefused() {
        let report = ScenarioRunner.run(
            BuiltInScenarios.sealedGrantRenewal, policy: ReferencePolicy(faults: .askLongGrants))
        #expect(Self.kinds(report).first == .grantTooLong)
        #expect(Self.kinds(report).allSatisfy { $0 == .grantTooLong || $0 == .grantNotRenewed })
        let expires = report.timeline.compactMap { if case .grantRenewed(_, let e) = $0.event { e } else { nil } }
        #expect(expires.allSatisfy { $0 == CallGrant.askLifetimeMs })
    }

    /// The grant runs out while the app never launched: no violation, but the gateway stops
    /// pushing (the call fails over without a push); the next launch renews and a call rings.
    @Test func expiredGrantStopsThePushesUntilRenewed() {
        let scenario = BuiltInScenarios.sealedGrantExpired
        let report = ScenarioRunner.run(scenario, policy: .correct)
        #expect(report.passed, "\(report.violations)")
        #expect(report.outcomes == [.failedOver, .connected])
        let expired = report.timeline.filter { if case .grantExpired(gateway: 0) = $0.event { true } else { false } }
        #expect(expired.map(\.t) == [CallGrant.askLifetimeMs])
        let pushedAt = report.timeline.compactMap { if case .pushSent = $0.event { $0.t } else { nil } }
        #expect(pushedAt.count == 1)
        #expect(pushedAt.allSatisfy { $0 > CallGrant.askLifetimeMs + 7_200_000 })
        #expect(Self.renewals(report) == [CallGrant.askLifetimeMs + 7_200_000])
        // Never renewing: the second call fails over too, and the launch owed a renewal.
        let never = ScenarioRunner.run(scenario, policy: ReferencePolicy(faults: .neverRenewGrants))
        #expect(never.outcomes == [.failedOver, .failedOver])
        #expect(Self.kinds(never) == [.grantNotRenewed])
        // Renewing every launch: the push's cold launch 5 minutes after the renewal is a storm.
        let eager = ScenarioRunner.run(scenario, policy: ReferencePolicy(faults: .renewGrantsEveryLaunch))
        #expect(Self.kinds(eager) == [.grantStorm])
        #expect(eager.outcomes == [.failedOver, .connected])
    }

    /// The naive preset never renews: both built-ins fail on GRANT; a clear gateway owes nothing.
    @Test func naiveFailsBothBuiltInsOnGrant() {
        for scenario in [BuiltInScenarios.sealedGrantRenewal, BuiltInScenarios.sealedGrantExpired] {
            let report = ScenarioRunner.run(scenario, policy: .naive)
            #expect(report.violations.map(\.kind).contains(.grantNotRenewed), "\(scenario.name)")
            var clear = scenario
            clear.server.sealed = false
            let clearRun = ScenarioRunner.run(clear, policy: ReferencePolicy(faults: .neverRenewGrants))
            #expect(!clearRun.rulesBroken.contains(.grant))
        }
    }

    /// The grant value on its own: storm window, cap, check-in, one flag per grant.
    @Test func grantValueKeepsTheRules() {
        var grant = CallGrant.fresh
        #expect(grant.live(at: CallGrant.askLifetimeMs - 1) && !grant.live(at: CallGrant.askLifetimeMs))
        let storm = grant.renew(lifetimeMs: CallGrant.askLifetimeMs, now: 60_000)
        #expect(storm == .storm)
        let long = grant.renew(lifetimeMs: 16 * Self.day, now: Self.day)
        #expect(long == .tooLong)
        #expect(grant.expiresMs == 60_000 + CallGrant.askLifetimeMs)
        grant.checkedIn(at: Self.day)
        let early = grant.flagNotRenewed()
        #expect(!early)
        grant.checkedIn(at: 8 * Self.day)
        let owed = grant.flagNotRenewed()
        let again = grant.flagNotRenewed()
        #expect(owed && !again)
        let renewed = grant.renew(lifetimeMs: CallGrant.maxLifetimeMs, now: 8 * Self.day)
        #expect(renewed == .granted)
        #expect(!grant.renewalOwed)
    }

    /// `call_keys` carries each grant's expiry; the correct client process answers with
    /// `renew_grant` when less than 7 days remain; a lifetime out of range is a client bug.
    @Test func renewGrantCrossesTheProtocol() throws {
        let sealing = SymbolicSealBox()
        let key = (0..<32).map { UInt8($0) }
        let hash = sealing.gatewayHash(key: key, gatewayID: "gw")
        var bridge = ClientBridge()
        var ctx = ClientContext()
        let soon = GatewayCallKey(gatewayHash: hash, key: key, grantExpiresMs: 3 * Self.day)
        let keysLine = bridge.line(for: .callKeys([soon]), ctx)
        #expect(keysLine.contains(#""grant_expires_ms":\#(3 * Self.day)"#))
        var session = ClientProtocolServer<ReferencePolicy>.Session(
            server: ClientProtocolServer(name: "correct") { .correct($0) })
        _ = try session.answer(Array(ClientBridge.resetLine(scenario: "x", settings: EmulatorSettings()).utf8))
        let answer = try session.answer(Array(keysLine.utf8))
        #expect(answer.contains(#""op":"renew_grant""#))
        try bridge.apply(answer: Array(answer.utf8), to: &ctx, callback: "call_keys")
        #expect(ctx.ops == [.renewGrant(lifetimeSeconds: 1_209_600)])
        let later = GatewayCallKey(gatewayHash: hash, key: key, grantExpiresMs: 10 * Self.day)
        let quiet = try session.answer(Array(bridge.line(for: .callKeys([later]), ctx).utf8))
        #expect(!quiet.contains("renew_grant"))
        #expect(throws: ClientFault.self) {
            try bridge.apply(answer: Array(#"{"ops":[{"op":"renew_grant","lifetime_s":0}]}"#.utf8), to: &ctx, callback: "call_keys")
        }
        #expect(throws: ClientFault.self) {
            try bridge.apply(answer: Array(#"{"ops":[{"op":"renew_grant"}]}"#.utf8), to: &ctx, callback: "call_keys")
        }
    }
}
