import SIPDialog
import SIPTransport

/// Why a monitored line failed a check, as the small fixed set of `cause` label values of
/// `sip_line_failures_total` (a free-text reason would make one series per message).
///
/// Built from what the stack reports: a ``TransportError`` code (connect, TLS, WebSocket,
/// connection end), a ``RegistrationFailure`` (RFC 3261 §10.2: digest refused, the registrar's
/// final status), an OPTIONS answer's status (RFC 3261 §11) or a transaction that ended
/// without one (Timer F or the ping's own bound, §17.1.2.2).
public enum FailureCause: String, Sendable, CaseIterable, Hashable {
    /// No answer in time: connect, handshake, keep-alive, REGISTER or OPTIONS.
    case timeout
    /// The connection was refused or the address unreachable.
    case refused
    /// The credentials were refused, or a challenge could not be answered (401/403/407).
    case auth
    /// The server certificate did not verify (chain, validity or name).
    case tlsVerify = "tls_verify"
    /// The TLS handshake failed for another reason.
    case tlsHandshake = "tls_handshake"
    /// The server name did not resolve.
    case dns
    /// The connection closed (peer FIN/RST, close_notify, WebSocket Close) or a send failed.
    case closed
    /// The WebSocket upgrade or the `sip` subprotocol was refused (RFC 6455 §4.1, RFC 7118 §4.1).
    case websocket
    /// The server broke the wire protocol, or sent an answer that cannot be used.
    case protocolError = "protocol"
    /// A 5xx or 6xx final response.
    case serverError = "server_error"
    /// Another 4xx final response (404 unknown user, 423 loop exhausted…).
    case rejected

    public init(_ error: TransportError) {
        switch error.code {
        case .resolutionFailed: self = .dns
        case .connectFailed, .socketFailed, .invalidArgument: self = .refused
        case .connectTimeout, .keepAliveTimeout: self = .timeout
        case .tlsHandshakeFailed: self = .tlsHandshake
        case .certificateVerificationFailed: self = .tlsVerify
        case .webSocketHandshakeFailed, .subprotocolRefused: self = .websocket
        case .protocolViolation, .messageTooLarge: self = .protocolError
        case .peerClosed, .sendFailed, .notConnected, .closed: self = .closed
        }
    }

    public init(_ failure: RegistrationFailure) {
        switch failure {
        case .authenticationFailed, .cannotAuthenticate: self = .auth
        case .rejected(let status, _): self = FailureCause(status: status) ?? .rejected
        case .timeout: self = .timeout
        case .transportError: self = .closed
        case .invalidResponse: self = .protocolError
        }
    }

    /// The cause a final status stands for; nil for a success (1xx–3xx).
    public init?(status: Int) {
        switch status {
        case 401, 403, 407: self = .auth
        case 400...499: self = .rejected
        case 500...699: self = .serverError
        default: return nil
        }
    }

    /// How a transaction ended without a final response (RFC 3261 §8.1.3.1: 408 or 503).
    public init(_ end: TransactionEnd) {
        self = end == .timeout ? .timeout : .closed
    }
}
