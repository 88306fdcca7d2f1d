/// One rule violation: what, when (virtual ms), and which call / push / CallKit call.
public struct Violation: Sendable, Hashable {
    /// The broken part of the rule.
    public var kind: ViolationKind
    /// Virtual time (ms) it was detected.
    public var t: Int64
    /// Server call index, or -1.
    public var call: Int32
    /// Push-id, or -1.
    public var push: Int32
    /// CallKit call, or -1.
    public var uuid: Int32

    /// The rule broken.
    public var rule: RuleID { kind.rule }

    public init(_ kind: ViolationKind, t: Int64, call: Int32 = -1, push: Int32 = -1, uuid: Int32 = -1) {
        self.kind = kind
        self.t = t
        self.call = call
        self.push = push
        self.uuid = uuid
    }
}
