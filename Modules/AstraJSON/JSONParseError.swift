/// Why a text is not one JSON value (RFC 8259), with the byte offset where reading stopped.
///
/// Compares on ``code`` only (swift-certificates `CertificateError` style); the description is
/// the one line a tool prints: `invalid JSON at byte 16: expected a key string`.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable for tests and callers that map it to their own errors.
    public enum Code: String, Sendable, Hashable {
        /// Nothing but whitespace.
        case empty
        /// Not RFC 8259 grammar (a stray character, a missing `,`, leading zeros, text after the value…).
        case syntax
        /// A string that is not valid UTF-8, holds a raw control character or a bad escape
        /// (lone surrogates included: RFC 8259 §8.2 leaves them unpredictable, we refuse them).
        case badString
        /// Arrays and objects nested deeper than ``JSONParser/Limits/maxDepth``.
        case tooDeep
        /// The text is longer than ``JSONParser/Limits/maxBytes``.
        case tooLarge
        /// An object names a member twice while `JSONParser.Limits.uniqueKeys` is on; the
        /// detail names it, the offset is where its second occurrence starts.
        case duplicateKey
    }

    public let code: Code
    /// The byte offset where reading stopped (0 for ``Code/empty`` and ``Code/tooLarge``).
    public let offset: Int
    /// What was expected or found, for people (`expected ':'`).
    public let detail: String

    public init(_ code: Code, at offset: Int, _ detail: String) {
        self.code = code
        self.offset = offset
        self.detail = detail
    }

    public var description: String {
        switch code {
        case .empty, .tooLarge: "invalid JSON: \(detail)"
        default: "invalid JSON at byte \(offset): \(detail)"
        }
    }

    public static func == (lhs: JSONParseError, rhs: JSONParseError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
