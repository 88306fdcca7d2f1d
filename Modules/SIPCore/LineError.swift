/// Why a line (TOOLS.md "The line") could not be read or is not usable.
///
/// Compares on ``code`` only (swift-certificates `CertificateError` style); ``field`` and
/// ``detail`` make the one-line message (`line: port 70000 out of range 1…65535 (server)`).
public struct LineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable for tests and exit-code mapping.
    public enum Code: String, Sendable, Hashable {
        /// The text is not JSON, or not a JSON object (with the byte offset in ``detail``).
        case invalidJSON = "invalid-json"
        /// `v` is newer than this build understands.
        case unsupportedVersion = "unsupported-version"
        /// A field has the wrong JSON type (a number where a string is expected…).
        case wrongType = "wrong-type"
        /// `user` is missing or empty.
        case missingUser = "missing-user"
        /// `domain` is missing or empty (and no address of record gave one).
        case missingDomain = "missing-domain"
        /// `user`, `auth_user` or `domain` holds characters not allowed in a SIP URI.
        case badIdentity = "bad-identity"
        /// `transport` is not one of udp, tcp, tls, ws, wss.
        case badTransport = "bad-transport"
        /// `server` / `outbound_proxy` is not `host[:port]`.
        case badServer = "bad-server"
        /// A port is not a number or is outside 1…65535.
        case badPort = "bad-port"
        /// `expires` is not an integer in 1…2147483647 (RFC 3261 §20.19 delta-seconds).
        case badExpires = "bad-expires"
        /// `ws_path` does not start with `/` or holds a character not allowed in a request target.
        case badWSPath = "bad-ws-path"
        /// A text field holds a character its grammar does not allow (a control character in
        /// `display_name`, a `;` in `push_token`…).
        case invalidCharacter = "invalid-character"
        /// A text field is longer than its bound (``Line/maxFieldBytes``).
        case tooLong = "too-long"
        /// Both `password` and `password_sealed` are present.
        case conflictingPassword = "conflicting-password"
        /// A `sip:`/`sips:` address of record could not be parsed.
        case badAddressOfRecord = "bad-address-of-record"
    }

    public let code: Code
    /// The JSON field the error is about, when there is one (`server`, `expires`…).
    public let field: String?
    /// Human detail; never contains a password.
    public let detail: String

    public init(_ code: Code, field: String? = nil, _ detail: String) {
        self.code = code
        self.field = field
        self.detail = detail
    }

    public var description: String {
        if let field { return "line: \(detail) (\(field))" }
        return "line: \(detail)"
    }

    public static func == (lhs: LineError, rhs: LineError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
