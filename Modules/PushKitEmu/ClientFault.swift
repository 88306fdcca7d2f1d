/// A client process that broke the client protocol: it did not answer in time, exited, or wrote
/// something that is not a valid answer. The emulator records it as a `CLIENT` violation and
/// stops the run (docs/pushkit-emulator.md "Bring your own client").
public struct ClientFault: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// No answer line within the bound (`--client-timeout-ms`): a hung handler.
        case noAnswer = "client_no_answer"
        /// The process exited (or closed its stdout) instead of answering.
        case exited = "client_exited"
        /// The answer is not JSON, not the expected object, or names an unknown op or value.
        case badAnswer = "client_bad_answer"
        /// A line nobody asked for: a second answer to one callback (every later answer would be
        /// read as the answer to the callback before it), or a line before any callback.
        case unsolicitedAnswer = "client_unsolicited_answer"
    }

    /// The kind (equality is on it).
    public var kind: Kind
    /// One line for people: which callback, what was read or how the process ended.
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public static func == (lhs: ClientFault, rhs: ClientFault) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
    public var description: String { detail }

    /// The violation kind it is recorded as.
    public var violationKind: ViolationKind {
        switch kind {
        case .noAnswer: .clientNoAnswer
        case .exited: .clientExited
        case .badAnswer: .clientBadAnswer
        case .unsolicitedAnswer: .clientUnsolicitedAnswer
        }
    }
}
