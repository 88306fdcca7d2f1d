import SIPCore
import SIPTransport

/// What the transaction layer reports to its transaction users (RFC 3261 §17 → TU).
public enum EndpointEvent: Sendable {
    /// The flow is (again) connected; requests go out with this binding.
    case flowUp(LocalBinding, reliable: Bool)
    /// The flow died (RFC 5626 §4.4); pending client transactions got a transport error.
    case flowDown(TransportError)
    /// The transport will try to reconnect.
    case reconnectScheduled(attempt: Int, after: Duration)
    /// A new request that opened a server transaction; answer it with ``SIPEndpoint/respond(to:with:)``.
    case request(IncomingRequest)
    /// An ACK for a 2xx (it belongs to no transaction, RFC 3261 §17.1.1.3 / §13.3.1.4).
    case ack(SIPRequest)
    /// A CANCEL matched this pending INVITE; the CANCEL was answered 200, the INVITE still needs
    /// its 487 (RFC 3261 §9.2).
    case cancelled(IncomingRequest)
    /// An out-of-transaction response (e.g. a retransmitted 2xx to an INVITE whose transaction is
    /// gone, which the TU re-ACKs, §13.2.2.4).
    case strayResponse(SIPResponse)
    /// An OPTIONS (qualify) was answered 200 by the endpoint itself.
    case qualifyAnswered(from: String)
    /// A message that could not be used, with the reason (one line).
    case discarded(String)
    /// The endpoint stopped.
    case stopped
}

/// A request that opened a server transaction.
public struct IncomingRequest: Sendable {
    public let request: SIPRequest
    public let key: TransactionKey
}

/// What a client transaction reports to the TU that started it.
public enum ClientTransactionUpdate: Sendable {
    case response(SIPResponse)
    case ended(TransactionEnd)
}
