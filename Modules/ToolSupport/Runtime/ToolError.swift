/// The one error type tools throw; ``exitCode`` is the single place that maps errors to exit codes.
///
/// Equality compares ``code`` only (like swift-certificates' `CertificateError`); compare
/// ``message`` explicitly where the text matters.
public struct ToolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as far as the exit status is concerned.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Rejected or failed (registration refused, call failed, invalid line, rule violated) → 1.
        case failed
        /// Network error (resolve, connect, TLS, WebSocket) → 3.
        case network
        /// No answer in time → 3.
        case timeout
        /// The server's TLS certificate did not verify → 6.
        case certificate
        /// astra-qr: an image had no code → 4.
        case noCodeFound
        /// Bad command-line arguments → 64.
        case usage
        /// Input that cannot be read (missing file, directory, not UTF-8) → 64.
        case unreadableInput
        /// A bug or an unexpected condition → 70.
        case `internal`
    }

    public var code: Code
    /// One line, without the `<tool>: ` prefix (``ToolMain`` adds it).
    public var message: String
    public var file: String
    public var line: Int

    public init(_ code: Code, _ message: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// The exit status for this error: the one mapping every tool shares.
    public var exitCode: ExitCode {
        switch code {
        case .failed: .failure
        case .network, .timeout: .network
        case .certificate: .certificate
        case .noCodeFound: .noCodeFound
        case .usage, .unreadableInput: .usage
        case .internal: .software
        }
    }

    public var description: String { message }

    public static func == (lhs: ToolError, rhs: ToolError) -> Bool { lhs.code == rhs.code }

    /// A usage error (exit 64).
    public static func usage(_ message: String, file: String = #fileID, line: Int = #line) -> ToolError {
        ToolError(.usage, message, file: file, line: line)
    }

    /// Maps any error to a ``ToolError``: the one place other modules' errors are translated.
    ///
    /// ``ToolError`` passes through; ``ToolErrorConvertible`` errors convert themselves;
    /// cancellation is a failure; anything else is an internal error (70).
    public init(mapping error: any Error) {
        switch error {
        case let error as ToolError:
            self = error
        case let error as any ToolErrorConvertible:
            self = error.toolError
        case is CancellationError:
            self = ToolError(.failed, "cancelled")
        default:
            self = ToolError(.internal, "internal error: \(String(describing: error))")
        }
    }
}

/// An error from a lower module that knows its tool-level meaning.
///
/// ToolSupport sits below the transport, so a conformance lives in the lowest module that sees
/// both (SIPTransport's `TransportError` in LineRunner, `TransportError+Exit.swift`): one per error
/// type, so each failure maps to one exit code whichever tool meets it.
public protocol ToolErrorConvertible: Error {
    var toolError: ToolError { get }
}
