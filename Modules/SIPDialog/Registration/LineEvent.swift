import SIPCore

/// Everything a registered line reports: flow state, registration progress and qualifies.
public enum LineEvent: Sendable {
    /// The flow is connected; `reliable` is false on UDP.
    case flowUp(LocalBinding, reliable: Bool)
    /// The flow died, with the transport's one-line reason.
    case flowDown(String)
    /// The transport will reconnect after `after`.
    case reconnectScheduled(attempt: Int, after: Duration)
    /// Registration progress (RFC 3261 §10.2).
    case registration(RegistrationEvent)
    /// The server's OPTIONS (qualify) reached us and was answered 200.
    case qualifyAnswered(from: String)
    /// Something received was unusable (one line, for `-v`).
    case discarded(String)
}
