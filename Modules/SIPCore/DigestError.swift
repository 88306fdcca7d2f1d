/// The one error type of SIP digest authentication (RFC 3261 §22, RFC 7616, RFC 8760).
///
/// Compares on ``code`` only; ``detail`` names the parameter or character at fault and never
/// carries a password, HA1 or response.
public struct DigestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Hashable, Sendable {
        /// The header value is empty or holds no challenge / credentials.
        case empty
        /// The input exceeds a parser bound (bytes, parameters or challenges).
        case tooLarge
        /// A byte that the RFC 7235 §2.1 / RFC 3261 §25.1 grammar does not allow here.
        case syntax
        /// A quoted-string without its closing quote.
        case unterminatedQuotedString
        /// A control character (CR, LF, NUL, …) in a value that would be serialized.
        case invalidCharacter
        /// A parameter RFC 7616 §3.3 / §3.4 requires (realm, nonce, uri, response, nc, cnonce…).
        case missingParameter
        /// The same parameter twice in one challenge (RFC 7235 §2.1).
        case duplicateParameter
        /// A parameter value that does not parse (nc, stale, userhash, username*).
        case invalidParameterValue
        /// The scheme is not `Digest`.
        case unsupportedScheme
        /// An algorithm other than the six of RFC 7616 §3.3 / RFC 8760 §2.
        case unsupportedAlgorithm
        /// A qop the challenge does not offer, or none we support (RFC 7616 §3.3).
        case unsupportedQoP
        /// No Digest challenge in the response that we can answer.
        case noUsableChallenge
        /// The credentials are restricted to another realm.
        case noCredentialsForRealm
        /// The server rejected our credentials: challenged again, not stale (RFC 3261 §22.2).
        case credentialsRejected
        /// The nonce count would exceed ffffffff (RFC 7616 §3.4).
        case nonceCountExhausted
        /// OpenSSL could not provide the hash (e.g. MD5 disabled by a FIPS provider).
        case hashUnavailable
    }

    /// What went wrong.
    public let code: Code
    /// A short context string: a parameter name or a byte offset description. Never a secret.
    public let detail: String
    /// Byte offset in the parsed header value, when the error comes from the parser.
    public let offset: Int?
    /// Where the error was raised.
    public let fileID: String
    /// Where the error was raised.
    public let line: Int

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "", offset: Int? = nil, fileID: String = #fileID, line: Int = #line) {
        self.code = code
        self.detail = detail
        self.offset = offset
        self.fileID = fileID
        self.line = line
    }

    public static func == (lhs: DigestError, rhs: DigestError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        var text = "digest: \(code.rawValue)"
        if !detail.isEmpty { text += " (\(detail))" }
        if let offset { text += " at byte \(offset)" }
        return text
    }
}
