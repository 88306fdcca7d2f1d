import SIPCore

/// What happened to a registration, for the tools' JSON events (RFC 3261 §10.2).
public enum RegistrationEvent: Sendable, Equatable {
    /// A REGISTER went out (`attempt` counts requests in this registration round).
    case registering(expires: UInt32, attempt: Int)
    /// The registrar or a proxy asked for credentials (401 / 407).
    case challenged(status: Int, algorithm: String)
    /// The registrar asked for a longer expiry (423, RFC 3261 §10.2.8).
    case intervalTooBrief(minExpires: UInt32)
    /// The binding is in place (first registration or refresh).
    case registered(RegistrationResult)
    /// The binding was removed (REGISTER with expiry 0 answered).
    case unregistered
    /// The registration failed; with retries on, a ``retryScheduled(after:)`` follows.
    case failed(RegistrationFailure)
    /// A new attempt is scheduled (failure back-off, RFC 5626 §4.5).
    case retryScheduled(after: Duration)
    /// The flow carrying the registration died (RFC 5626 §4.4); re-registering when it is back.
    case flowLost
}

/// The outcome of a successful REGISTER.
public struct RegistrationResult: Sendable, Equatable {
    /// The expiry granted for our Contact (from its `expires` parameter, else the Expires header).
    public var grantedExpires: UInt32
    /// Every binding the registrar reported for the address of record.
    public var bindings: [String]
    /// The digest algorithm used, if the registrar challenged.
    public var authAlgorithm: String?
    /// This was a refresh of an existing binding.
    public var isRefresh: Bool
    /// The registrar listed our Contact among the bindings.
    public var contactMatched: Bool
}

/// Why a registration failed.
public enum RegistrationFailure: Sendable, Hashable, CustomStringConvertible {
    /// The registrar answered with a final error status (after authentication, if any).
    case rejected(status: Int, reason: String)
    /// The credentials were refused (a second challenge after our answer).
    case authenticationFailed(status: Int, reason: String)
    /// A challenge we cannot answer: no password, or no supported algorithm.
    case cannotAuthenticate(status: Int, reason: String, detail: String)
    /// No final response before Timer F (RFC 3261 §8.1.3.1: treated as 408).
    case timeout
    /// The transport could not deliver the request (§8.1.3.1: treated as 503).
    case transportError
    /// The 2xx could not be understood.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .rejected(let status, let reason): "registrar answered \(status) \(reason)"
        case .authenticationFailed(let status, let reason): "credentials rejected: \(status) \(reason)"
        case .cannotAuthenticate(let status, let reason, let detail): "cannot answer \(status) \(reason): \(detail)"
        case .timeout: "no response from the registrar (timeout)"
        case .transportError: "transport error while sending REGISTER"
        case .invalidResponse(let detail): "invalid response: \(detail)"
        }
    }

    /// The registrar's final status, when there was one.
    public var status: Int? {
        switch self {
        case .rejected(let s, _), .authenticationFailed(let s, _), .cannotAuthenticate(let s, _, _): s
        case .timeout, .transportError, .invalidResponse: nil
        }
    }
}
