import Testing

@testable import Torture

/// The judging rules, one per kind of expectation, on observations built by hand.
@Suite struct TortureOracleTests {
    static func judge(
        _ name: String, reliable: Bool = false, _ statuses: [Int], closed: Bool = false, unsupported: String? = nil
    )
        -> TortureVerdict
    {
        let answers = statuses.map { TortureAnswer(status: $0, unsupported: unsupported) }
        return TortureOracle.judge(
            TortureCatalog.named(name)!, reliable: reliable, TortureObservation(answers: answers, closed: closed))
    }

    @Test func validRequestsAreHandledAndNever400() {
        #expect(Self.judge("wsinv", [407]).matches)
        #expect(Self.judge("wsinv", [100]).matches)  // a provisional answer: a transaction was made
        #expect(Self.judge("esc02", [501]).matches)
        let rejected = Self.judge("wsinv", [400])
        #expect(!rejected.matches && rejected.reason == "rejected with 400" && rejected.observed == "400")
        #expect(Self.judge("wsinv", []).reason == "no answer")
        #expect(Self.judge("ipv6-good", [100, 400]).matches == false)
    }

    @Test func invalidRequestsGetTheirStatus() {
        #expect(Self.judge("badinv01", [400]).matches)
        #expect(!Self.judge("badinv01", [200]).matches)
        #expect(Self.judge("badvers", [505]).matches)
        #expect(Self.judge("badvers", [400]).reason == "answered 400")
        #expect(Self.judge("mismatch02", [501]).matches && Self.judge("mismatch02", [400]).matches)
        #expect(Self.judge("unkscm", [416]).matches && !Self.judge("unkscm", [404]).matches)
        #expect(Self.judge("novelsc", [404]).matches)
        #expect(Self.judge("ncl", [403]).matches && !Self.judge("ncl", [200]).matches)  // "an error"
    }

    @Test func extensionRejectionNeedsUnsupported() {
        #expect(Self.judge("bext01", [420], unsupported: "nothingSupportsThis").matches)
        let bare = Self.judge("bext01", [420])
        #expect(!bare.matches && bare.reason == "420 without Unsupported")
        #expect(Self.judge("bext01", [200]).expected == "420 with Unsupported")
    }

    @Test func responsesAreDropped() {
        for name in ["bigcode", "scalarlg", "unreason", "noreason", "bcast"] {
            #expect(Self.judge(name, []).matches, "\(name)")
            #expect(!Self.judge(name, [400]).matches, "\(name)")
        }
    }

    @Test func liberalReceiversMayAcceptOrReject() {
        #expect(Self.judge("lwsstart", [400]).matches && Self.judge("lwsstart", [407]).matches)
        #expect(!Self.judge("lwsstart", []).matches)
    }

    @Test func framingErrorsCloseAStream() {
        #expect(Self.judge("clerr", [400]).matches)  // UDP
        #expect(!Self.judge("clerr", reliable: true, [400]).matches)
        #expect(Self.judge("clerr", reliable: true, [400], closed: true).matches)
        #expect(Self.judge("clerr", reliable: true, [], closed: true).observed == "closed")
        #expect(Self.judge("mcl01", reliable: true, []).reason == "the connection stayed open")
        #expect(Self.judge("mcl01", reliable: true, [400], closed: true).observed == "400+closed")
    }

    @Test func outcomesAreStable() {
        #expect(
            TortureObservation(answers: [.init(status: 100), .init(status: 407), .init(status: 407)]).outcome
                == "100,407")
        #expect(TortureObservation().outcome == "none")
    }

    @Test func theBaselineTellsKnownDeviationsFromRegressions() throws {
        let torture = TortureCatalog.named("bext01")!
        func result(_ status: Int) -> TortureResult {
            let observation = TortureObservation(answers: [.init(status: status)])
            return TortureResult(
                torture: torture, changes: [], size: 1, observation: observation,
                verdict: TortureOracle.judge(torture, reliable: false, observation), aliveAfter: true)
        }
        var baseline = TortureBaseline(server: "test")
        baseline.record([result(200)], transport: "udp")
        #expect(baseline.standing(result(200), transport: "udp") == .known)
        #expect(baseline.standing(result(483), transport: "udp") == .regression)
        #expect(baseline.standing(result(200), transport: "tcp") == .regression)
        let parsed = try TortureBaseline(parsing: Array(baseline.text.utf8))
        #expect(parsed == baseline)
        #expect(throws: TortureBaselineError.self) { try TortureBaseline(parsing: Array("{\"v\":2}".utf8)) }
    }

    @Test func junitMarksRegressionsAndUnsentMessages() {
        let torture = TortureCatalog.named("badvers")!
        let observation = TortureObservation(answers: [.init(status: 400)])
        let result = TortureResult(
            torture: torture, changes: [], size: 1, observation: observation,
            verdict: TortureOracle.judge(torture, reliable: false, observation), aliveAfter: false)
        let xml = TortureJUnit.render([
            .init(
                transport: "udp", results: [(result, .regression)], unsent: [TortureCatalog.named("mismatch01")!],
                end: .stopped(after: "badvers", reason: "no answer"))
        ])
        #expect(xml.contains("<testsuite name=\"udp\" tests=\"2\" failures=\"1\" errors=\"1\">"))
        #expect(xml.contains("<failure message=\"got 400, expected 505\">answered 400</failure>"))
        #expect(xml.contains("<error message=\"server stopped answering after badvers\"/>"))
        #expect(TortureJUnit.escape("a<b&\"c\u{1}") == "a&lt;b&amp;&quot;c")
    }
}
