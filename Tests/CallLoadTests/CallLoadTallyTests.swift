import AstraJSON
import CallLoad
import CallSession
import SIPDialog
import Testing

/// The figures of a load run: which calls count as failed and under which cause, and the
/// `load_summary` built from them (pure; the real run is KamailioTests.CallLoadKamailioTests).
@Suite struct CallLoadTallyTests {
    static func stats(setup: Double?, sent: Int = 250, received: Int = 250, mos: Double? = 4.4) -> CallStatistics {
        var s = CallStatistics()
        s.setupMilliseconds = setup
        s.packetsSent = sent
        s.packetsReceived = received
        s.mos = mos
        return s
    }

    static func result(_ reason: CallEndReason, _ stats: CallStatistics, tone: (Double, Double, Double)? = nil)
        -> CallLoadTally.Result
    {
        CallLoadTally.Result(
            index: 0, from: "sip:1001@example.test", target: "sip:2001@example.test", callID: "c1",
            reason: reason, stats: stats, tone: tone.map { (frequency: $0.0, heard: $0.1, tone: $0.2) })
    }

    /// Unanswered calls count under their final status (486, 503), else their end reason.
    @Test func unansweredCallsCountUnderTheirStatus() {
        #expect(Self.result(.busy(status: 486), Self.stats(setup: nil, sent: 0, received: 0)).failureCause == "486")
        #expect(
            Self.result(.failed(status: 503, reason: "Service Unavailable"), Self.stats(setup: nil)).failureCause == "503")
        #expect(Self.result(.noAnswer, Self.stats(setup: nil)).failureCause == CallEndReason.noAnswer.name)
    }

    /// An answered call must end by a hang-up with media both ways, and the tone heard when asked.
    @Test func answeredCallsNeedMediaBothWaysAndTheTone() {
        #expect(Self.result(.localHangUp, Self.stats(setup: 12)).failureCause == nil)
        #expect(Self.result(.localHangUp, Self.stats(setup: 12, received: 0)).failureCause == "no_media")
        #expect(Self.result(.rtpTimeout, Self.stats(setup: 12)).failureCause == CallEndReason.rtpTimeout.name)
        #expect(Self.result(.localHangUp, Self.stats(setup: 12), tone: (440, 2, 0.4)).failureCause == "no_tone")
        #expect(Self.result(.localHangUp, Self.stats(setup: 12), tone: (440, 2, 1.8)).failureCause == nil)
    }

    /// The summary: causes counted, percentiles of set-up and MOS, CPU per call.
    @Test func summaryCountsByCause() {
        var tally = CallLoadTally()
        let first = tally.record(Self.result(.localHangUp, Self.stats(setup: 10)))
        let second = tally.record(Self.result(.localHangUp, Self.stats(setup: 30, mos: 4.0)))
        let busy = tally.record(Self.result(.busy(status: 486), Self.stats(setup: nil, sent: 0, received: 0, mos: nil)))
        #expect(first && second && !busy)
        tally.noteUnplaced()
        let counts = LoadCounts(planned: 4, started: 4, registered: 2, failed: 2)
        let summary = tally.summary(
            counts, stopped: .completed, settings: ["concurrency": .int(2)], wallMilliseconds: 1000, cpuSeconds: 0.4)
        #expect(summary["attempted"]?.intValue == 4)
        #expect(summary["answered"]?.intValue == 2)
        #expect(summary["two_way_media"]?.intValue == 2)
        #expect(summary["failed_by_cause"] == .object(["486": .int(1), "not_placed": .int(1)]))
        #expect(summary["setup_ms"]?["p50"]?.doubleValue == 10)
        #expect(summary["setup_ms"]?["p99"]?.doubleValue == 30)
        #expect(summary["mos"]?["p5"]?.doubleValue == 4.0)
        #expect(summary["cpu_s_per_call"]?.doubleValue == 0.1)
        #expect(summary["concurrency"]?.intValue == 2)
        let text = CallLoadTally.summaryText(summary)
        #expect(text.hasPrefix("4 attempted, 2 answered, 2 ok, 2 failed (486: 1, not_placed: 1) [completed]"), "\(text)")
    }

    /// Targets: SIP URIs as given, bare users in the first line's domain; a bad one is a usage error.
    @Test func targetsAreURIsOrUsersInTheLinesDomain() throws {
        let uris = try CallLoadRun.targets(["2001", "sip:echo@pbx.test"], domain: "example.test")
        #expect(uris.map(\.description) == ["sip:2001@example.test", "sip:echo@pbx.test"])
        #expect(throws: (any Error).self) { try CallLoadRun.targets([], domain: "example.test") }
    }
}
