import PushKitEmu
import Testing

/// Each rule: broken → that rule's violation; correct policy on the unbroken scenario → none.
@Suite struct RuleTests {
    struct Case: Sendable, CustomStringConvertible {
        var scenario: Scenario
        /// Client bugs switched on for the breaking run.
        var faults: ReferencePolicy.Faults
        /// Server/setting changes for the breaking run (R3, R6 headers, WAKE).
        var breakServer: @Sendable (inout Scenario) -> Void = { _ in }
        var expected: ViolationKind
        var description: String { "\(expected.rule.rawValue) \(expected.rawValue) in \(scenario.name)" }
    }

    static let cases: [Case] = [
        Case(scenario: BuiltInScenarios.killed, faults: .networkBeforeReport, expected: .networkingBeforeReport),
        Case(scenario: BuiltInScenarios.killed, faults: .reportAfterRegister, expected: .notReportedBeforeReturn),
        Case(scenario: BuiltInScenarios.strikeOut, faults: .dropOddPushes, expected: .pushBlackout),
        Case(
            scenario: BuiltInScenarios.message, faults: [], breakServer: { $0.server.messagesViaVoIP = true },
            expected: .nonCallVoIPPush),
        Case(
            scenario: with(BuiltInScenarios.killed) { $0.phone.mustReport = true }, faults: .reportAfterRegister,
            expected: .mustReportNotReported),
        Case(scenario: BuiltInScenarios.killed, faults: .secondCallForInvite, expected: .duplicateSession),
        Case(scenario: BuiltInScenarios.noInvite, faults: .noPlaceholderTimeout, expected: .placeholderNotEnded),
        Case(
            scenario: BuiltInScenarios.answerBeforeInvite, faults: .fulfillAnswerEarly,
            expected: .answerFulfilledBeforeOK),
        Case(
            scenario: with(BuiltInScenarios.answerBeforeInvite) { $0.settings.naiveMergeDelayMs = 15_000 },
            faults: [.secondCallForInvite, .noPlaceholderTimeout], expected: .answerActionTimedOut),
        Case(
            scenario: BuiltInScenarios.declineBeforeInvite, faults: .secondCallForInvite, expected: .rangAfterDecline),
        Case(scenario: BuiltInScenarios.cancelAfterAck, faults: .ignoreCallerLeft, expected: .callerLeftStillRinging),
        Case(scenario: BuiltInScenarios.cancelBeforeWake, faults: .ignoreCallerLeft, expected: .callerLeftStillRinging),
        Case(scenario: BuiltInScenarios.unknownOrigin, faults: .ringOddPushes, expected: .unusablePushNotEnded),
        Case(scenario: BuiltInScenarios.strikeOut, faults: .ringOddPushes, expected: .unusablePushNotEnded),
        Case(scenario: BuiltInScenarios.reconnectStored, faults: .ringStalePushes, expected: .staleDeliveryRang),
        Case(
            scenario: BuiltInScenarios.killed, faults: [],
            breakServer: { $0.server.request.topic = "com.example.astra" },
            expected: .apnsRequestRejected),
        Case(
            scenario: BuiltInScenarios.deadPhone, faults: [], breakServer: { $0.settings.ackWindowMs = 4_000 },
            expected: .failoverTooSlow),
    ]

    static func with(_ scenario: Scenario, _ change: (inout Scenario) -> Void) -> Scenario {
        var s = scenario
        change(&s)
        return s
    }

    @Test(arguments: cases)
    func brokenRuleIsFlagged(_ c: Case) {
        var scenario = c.scenario
        c.breakServer(&scenario)
        let report = ScenarioRunner.run(
            scenario, policy: ReferencePolicy(faults: c.faults, settings: scenario.settings))
        #expect(report.violations.contains { $0.kind == c.expected }, "\(report.violations.map(\.kind))")
        #expect(report.rulesBroken.contains(c.expected.rule))
        let line = report.timeline.first {
            if case .violation(let v) = $0.event { v.kind == c.expected } else { false }
        }
        #expect(line != nil, "violation is on the timeline with its time")
    }

    @Test(arguments: cases)
    func correctPolicyPasses(_ c: Case) {
        let report = ScenarioRunner.run(c.scenario, policy: .correct)
        #expect(report.violations.isEmpty, "\(report.violations.map(\.kind))")
        #expect(report.passed)
    }

    /// R4: `mustReport: false` waives R1 by default; the waiver is a setting.
    @Test(arguments: [
        (Bool?.none, true, ViolationKind?.some(.notReportedBeforeReturn)),
        (true, true, .mustReportNotReported),
        (false, true, nil),
        (false, false, .mustReportNotReported),
    ])
    func mustReportSemantics(_ mustReport: Bool?, _ waives: Bool, _ expected: ViolationKind?) {
        var scenario = BuiltInScenarios.killed
        scenario.phone.mustReport = mustReport
        scenario.settings.mustReportFalseWaivesR1 = waives
        let report = ScenarioRunner.run(scenario, policy: ReferencePolicy(faults: .reportAfterRegister))
        let r1r4 = report.violations.map(\.kind).filter {
            $0 == .notReportedBeforeReturn || $0 == .mustReportNotReported
        }
        #expect(r1r4 == (expected.map { [$0] } ?? []))
    }

    /// R6: every header problem APNs refuses is flagged, with the server failing over at once.
    @Test(arguments: [
        ("push_type", APNsRejection.invalidPushType), ("topic", .badTopic), ("priority", .badPriority),
        ("size", .payloadTooLarge),
    ])
    func apnsHeaderChecks(_ field: String, _ reason: APNsRejection) {
        var scenario = BuiltInScenarios.killed
        switch field {
        case "push_type": scenario.server.request.pushType = "alert"
        case "topic": scenario.server.request.topic = "com.example.astra"
        case "priority": scenario.server.request.priority = 5
        default: scenario.server.request.payloadBytes = 5_121
        }
        let report = ScenarioRunner.run(scenario, policy: .correct)
        #expect(report.timeline.contains { $0.event == .apnsRejected(push: 0, reason: reason) })
        #expect(report.violations.map(\.kind) == [.apnsRequestRejected])
        #expect(report.outcomes == [.failedOver])
    }

    /// R2: the strike threshold is a setting; blackout suppresses the real call's push.
    @Test(arguments: [1, 2, 3, 4])
    func strikeThresholdIsASetting(_ threshold: Int) {
        var scenario = BuiltInScenarios.strikeOut
        scenario.settings.strikeThreshold = threshold
        let report = ScenarioRunner.run(scenario, policy: ReferencePolicy(faults: .dropOddPushes))
        let blackout = report.violations.contains { $0.kind == .pushBlackout }
        #expect(blackout == (threshold <= 3))
        #expect(report.outcomes == [threshold <= 3 ? .failedOver : .connected])
    }
}
