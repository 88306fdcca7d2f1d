/// The typed error of the STUN codec (RFC 8489): a ``Code`` to compare on, plus one line of context.
public struct STUNError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// RFC 8489 §5: not a STUN message (short, top bits set, bad cookie, bad length).
        case notSTUN
        /// RFC 8489 §14: an attribute runs past the end of the message or is malformed.
        case malformedAttribute
        /// RFC 8489 §14.7: FINGERPRINT does not match the CRC-32 of the message.
        case badFingerprint
        /// RFC 8489 §14.5/§14.6: MESSAGE-INTEGRITY(-SHA256) missing or wrong.
        case badIntegrity
        /// RFC 8489 §6.2.1: no response after Rc retransmissions and Rm × RTO.
        case timeout
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public static func == (lhs: STUNError, rhs: STUNError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { detail.isEmpty ? "stun: \(code.rawValue)" : "stun: \(code.rawValue): \(detail)" }
}
