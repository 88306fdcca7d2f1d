/// A local/remote candidate pair on the check list (RFC 8445 §6.1.2).
public struct ICECandidatePair: Sendable, Hashable, CustomStringConvertible {
    /// RFC 8445 §6.1.2.6: the states of a pair.
    public enum State: String, Sendable, Hashable {
        /// Not checked until a pair of its foundation succeeds (or it is unfrozen).
        case frozen
        /// Ready to be checked when its turn comes (one check per Ta).
        case waiting
        /// A check is in flight.
        case inProgress
        /// The check produced a success response: the pair (or the one it maps to) is valid.
        case succeeded
        /// The check failed (timeout, error, non-symmetric response).
        case failed
    }

    /// Stable identity within one agent (indices move when the list is re-sorted).
    public let id: Int
    public var local: ICEAgentCandidate
    public var remote: ICEAgentCandidate
    public var state: State = .frozen
    public var priority: UInt64 = 0
    /// RFC 8445 §8.1.1: the pair carried USE-CANDIDATE and succeeded.
    public var nominated = false
    /// Controlled agent (§7.3.1.5): USE-CANDIDATE arrived while this pair was not yet valid;
    /// nominate it when its own check succeeds.
    var nominateOnSuccess = false

    init(id: Int, local: ICEAgentCandidate, remote: ICEAgentCandidate, controlling: Bool) {
        self.id = id
        self.local = local
        self.remote = remote
        updatePriority(controlling: controlling)
    }

    /// RFC 8445 §6.1.2.3: foundations of both candidates.
    public var foundation: String { local.foundation + "/" + remote.foundation }

    /// RFC 8445 §6.1.2.3: 2^32·MIN(G,D) + 2·MAX(G,D) + (G > D ? 1 : 0), G the controlling
    /// agent's candidate priority and D the controlled agent's.
    public static func priority(controlling g: UInt32, controlled d: UInt32) -> UInt64 {
        (UInt64(min(g, d)) << 32) + 2 * UInt64(max(g, d)) + (g > d ? 1 : 0)
    }

    mutating func updatePriority(controlling: Bool) {
        priority =
            controlling
            ? Self.priority(controlling: local.priority, controlled: remote.priority)
            : Self.priority(controlling: remote.priority, controlled: local.priority)
    }

    public var description: String {
        "\(local.address) -> \(remote.address) [\(state.rawValue)\(nominated ? ", nominated" : "")]"
    }
}
