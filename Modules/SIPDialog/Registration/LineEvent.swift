import SIPCore
import SIPTransport

/// Everything a registered line reports: flow state, registration progress and qualifies.
public enum LineEvent: Sendable {
    /// The flow is connected; `reliable` is false on UDP.
    case flowUp(LocalBinding, reliable: Bool)
    /// The flow died; the error's code tells an outage from a certificate that did not verify.
    case flowDown(TransportError)
    /// The transport will reconnect after `after`.
    case reconnectScheduled(attempt: Int, after: Duration)
    /// Registration progress (RFC 3261 §10.2).
    case registration(RegistrationEvent)
    /// The server's OPTIONS (qualify) reached us and was answered 200.
    case qualifyAnswered(from: String)
    /// Something received was unusable (one line, for `-v`).
    case discarded(String)
}
