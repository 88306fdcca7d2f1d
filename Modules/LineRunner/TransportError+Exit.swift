import SIPTransport
import ToolSupport

/// How a transport failure ends a tool (docs/tools.md "Exit codes"): one place, so astra-register
/// and astra-call tell configuration from outage the same way.
extension TransportError: ToolErrorConvertible {
    /// 6 when the server's certificate did not verify (a configuration problem: its CA), 64 for
    /// an argument the transport refused (a CA file that does not load), 3 for everything else.
    public var exitCode: ExitCode { toolError.exitCode }

    /// The one-line machine message (the JSON `reason`); people read it through
    /// ``FailureWords/explain(_:setup:)``, which adds the fix (`--ca-file`) once.
    public var toolMessage: String { toolError.message }

    public var toolError: ToolError {
        switch code {
        case .certificateVerificationFailed:
            ToolError(.certificate, description)
        case .invalidArgument:
            ToolError(.usage, description)
        default:
            ToolError(.network, description)
        }
    }
}
