/// The judgement of one message: did the server do what the RFC asks?
public struct TortureVerdict: Sendable, Hashable {
    /// The server did what the oracle expects.
    public var matches: Bool
    /// The expectation, in words (``TortureExpectation/description``).
    public var expected: String
    /// ``TortureObservation/outcome``.
    public var observed: String
    /// Why it did not match (empty when it did).
    public var reason: String

    public init(matches: Bool, expected: String, observed: String, reason: String) {
        self.matches = matches
        self.expected = expected
        self.observed = observed
        self.reason = reason
    }
}

/// Judges an observation against a case's expectation: pure, so every rule is unit-tested
/// without a socket.
public enum TortureOracle {
    /// The verdict for `observation` of `torture` over a `reliable` (stream) or datagram transport.
    public static func judge(_ torture: TortureCase, reliable: Bool, _ observation: TortureObservation)
        -> TortureVerdict
    {
        let expectation = torture.expectation(reliable: reliable)
        let reason = mismatch(expectation, observation)
        return TortureVerdict(
            matches: reason == nil, expected: expectation.description, observed: observation.outcome,
            reason: reason ?? "")
    }

    /// Nil when `observation` meets `expectation`, else why not.
    static func mismatch(_ expectation: TortureExpectation, _ observation: TortureObservation) -> String? {
        let answers = observation.answers
        switch expectation {
        case .handled:
            if answers.isEmpty { return "no answer" }
            if answers.contains(where: { $0.status == 400 }) { return "rejected with 400" }
            return nil
        case .status(let codes, let header):
            guard let hit = answers.first(where: { codes.contains($0.status) }) else {
                return answers.isEmpty ? "no answer" : "answered \(observation.outcome)"
            }
            if let header, !hit.has(header: header) { return "\(hit.status) without \(header)" }
            return nil
        case .error:
            if answers.contains(where: { (400...699).contains($0.status) }) { return nil }
            return answers.isEmpty ? "no answer" : "answered \(observation.outcome), not an error"
        case .answered:
            return answers.isEmpty ? "no answer" : nil
        case .dropped:
            return answers.isEmpty ? nil : "answered \(observation.outcome)"
        case .closed:
            return observation.closed ? nil : "the connection stayed open"
        }
    }
}
