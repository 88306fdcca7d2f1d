/// Everything the run learned about one message: what was sent, what came back, the verdict.
public struct TortureResult: Sendable, Hashable {
    public var torture: TortureCase
    /// The declared edits applied before sending.
    public var changes: [TortureChange]
    /// How many octets were sent.
    public var size: Int
    public var observation: TortureObservation
    public var verdict: TortureVerdict
    /// The OPTIONS after the message was answered (false: the server stopped answering here).
    public var aliveAfter: Bool

    public init(
        torture: TortureCase, changes: [TortureChange], size: Int, observation: TortureObservation,
        verdict: TortureVerdict, aliveAfter: Bool
    ) {
        self.torture = torture
        self.changes = changes
        self.size = size
        self.observation = observation
        self.verdict = verdict
        self.aliveAfter = aliveAfter
    }
}

/// How a run over one transport ended.
public enum TortureEnd: Sendable, Hashable {
    /// Every message was sent, and the server answered the last OPTIONS.
    case completed
    /// The server stopped answering the liveness OPTIONS (or refused the connection):
    /// `after` is the last message sent (nil: before the first one).
    case stopped(after: String?, reason: String)

    /// `after bext01` / `before the first message`.
    public var whereStopped: String? {
        guard case .stopped(let after, _) = self else { return nil }
        return after.map { "after \($0)" } ?? "before the first message"
    }
}
