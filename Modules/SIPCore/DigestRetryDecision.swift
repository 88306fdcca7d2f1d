/// What to do after a 401 / 407 (RFC 3261 §22.2 / §22.3); an expected outcome, not an error.
public enum DigestRetryDecision: Sendable, Hashable {
    /// Resend the request with a new CSeq and ``DigestClientState/authorizationHeaders(method:uri:body:)``.
    case retry
    /// Do not resend: the credentials were rejected, no challenge can be answered, or a
    /// challenge header does not parse. Surface it (e.g. as a registration failure).
    case giveUp(DigestError)
}
