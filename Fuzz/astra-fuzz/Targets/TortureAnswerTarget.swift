import Torture

/// What astra-torture reads from a server: every received message as raw bytes (an answer that
/// echoes a torture message's bad header must still count), then the oracle judging it for
/// every case over both transport kinds, and the baseline file it reads.
///
/// Invariants: an answer's status is three digits from 100; the outcome of an observation names
/// each status once; a baseline recorded from results reads back as itself.
enum TortureAnswerTarget {
    static let target = FuzzTarget(
        name: "torture-answer",
        summary: "astra-torture input: raw answers (status line, Call-ID, Unsupported) judged by the oracle; baselines",
        maxLength: 16_384, dictionary: "sip",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        if bytes.first == UInt8(ascii: "{") {
            guard let baseline = try? TortureBaseline(parsing: bytes) else { return }
            let again = try? TortureBaseline(parsing: Array(baseline.text.utf8))
            invariant(again?.outcomes == baseline.outcomes, "a baseline written again does not read back the same")
            return
        }
        guard let answer = TortureAnswer(raw: bytes) else { return }
        invariant((100...999).contains(answer.status), "an answer status outside 100…999")
        let observation = TortureObservation(answers: [answer, answer], closed: bytes.count % 2 == 1)
        invariant(!observation.outcome.contains("\(answer.status),\(answer.status)"), "a status named twice")
        for torture in TortureCatalog.all {
            for reliable in [false, true] {
                let verdict = TortureOracle.judge(torture, reliable: reliable, observation)
                invariant(verdict.matches == verdict.reason.isEmpty, "a verdict's reason disagrees with its match")
            }
        }
    }

    static func seeds() -> [[UInt8]] {
        let responses = SeedFiles.sipMessages().filter { $0.starts(with: Array("SIP/".utf8)) }
        let baseline = Array(
            #"{"v":1,"server":"seed","transports":{"udp":{"wsinv":"none","clerr":"400"},"tcp":{"mcl01":"closed"}}}"#
                .utf8)
        return responses + [baseline]
    }
}
