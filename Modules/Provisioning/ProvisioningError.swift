import SIPCore

/// Why a provisioning step failed: reading an image, finding a code, turning it into a line,
/// unsealing, encoding. One clear line via `description`; compares on ``code``.
public struct ProvisioningError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The file cannot be read (missing, permission…).
        case unreadableFile = "unreadable-file"
        /// The bytes are not a PNG, PGM or PPM image.
        case notAnImage = "not-an-image"
        /// The image is damaged or cut short (libpng / netpbm reader error in ``detail``).
        case corruptImage = "corrupt-image"
        /// The image holds no QR code zbar can find.
        case noCode = "no-code"
        /// A code was found but its text is not a line in any accepted form.
        case notALine = "not-a-line"
        /// The payload is a line, but the line is invalid (``lineError`` says why).
        case invalidLine = "invalid-line"
        /// The line would weaken TLS (`tls_verify` false, a `ca_file`, a foreign
        /// `tls_server_name`) and weakening was not allowed (`--allow-insecure`).
        case weakensTLS = "weakens-tls"
        /// The payload's version is newer than this build.
        case unsupportedPayload = "unsupported-payload"
        /// The sealed password is malformed (bad base64, unknown KDF, parameters out of bounds).
        case badSeal = "bad-seal"
        /// AES-256-GCM authentication failed: wrong passphrase or key, or a tampered code.
        case wrongPassphrase = "wrong-passphrase"
        /// The text does not fit in a QR code at the chosen error-correction level.
        case tooLarge = "too-large"
        /// An option value is not usable (bad `-l`, `-s`, `-t`…).
        case badOption = "bad-option"
        /// A C library call failed (OpenSSL, libqrencode, zbar, libpng) unexpectedly.
        case library = "library"
    }

    public let code: Code
    public let detail: String
    /// The underlying line error for ``Code/invalidLine``.
    public let lineError: LineError?

    public init(_ code: Code, _ detail: String, lineError: LineError? = nil) {
        self.code = code
        self.detail = detail
        self.lineError = lineError
    }

    public init(_ error: LineError) {
        self.init(.invalidLine, error.description, lineError: error)
    }

    public var description: String { detail }

    public static func == (lhs: ProvisioningError, rhs: ProvisioningError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
