import ExampleClient
import PushKitEmu
import Testing

/// The app's own handler judged by PushKitEmu from the app's own tests: every built-in scenario,
/// under the ideal delivery model and under the field model (20 seeds each).
@Suite struct AppCallHandlerTests {
    static let correct = PolicyMaker(name: "swift-example") { AppCallHandler(settings: $0.settings) }
    static let buggy = PolicyMaker(name: "swift-example-buggy") {
        AppCallHandler(settings: $0.settings, bug: .secondCallForInvite)
    }

    @Test func keepsEveryRule() {
        for report in ScenarioRunner.checkAll(source: Self.correct) {
            #expect(report.passed, "\(report.scenario): \(report.violations.map(\.kind.rawValue)) \(report.outcomes)")
        }
        for check in ScenarioRunner.checkField(source: Self.correct, runs: 20) {
            #expect(check.passed, "\(check.scenario) under field delivery: \(check.kinds)")
        }
    }

    @Test func theBugBreaksR5DuplicateSession() {
        let reports = ScenarioRunner.checkAll(source: Self.buggy)
        let kinds = Set(reports.flatMap { $0.violations.map(\.kind) })
        #expect(kinds.contains(.duplicateSession))
        #expect(Set(reports.flatMap(\.rulesBroken)) == [.r5])
        let killed = ScenarioRunner.run(BuiltInScenarios.killed, source: Self.buggy)
        #expect(killed.violations.first?.kind == .duplicateSession)
    }
}
