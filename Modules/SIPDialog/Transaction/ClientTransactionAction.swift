/// What a client transaction asks its shell to do (RFC 3261 §17.1). `Response` is whatever the
/// shell passes in with ``InviteClientTransaction/receive(status:_:)``; the state machine never
/// looks inside it.
public enum ClientTransactionAction<Response: Sendable>: Sendable {
    /// Send the request (first transmission or retransmission).
    case sendRequest
    /// Build the ACK for this non-2xx final response and send it (§17.1.1.3); INVITE only.
    case sendACK(Response)
    /// Pass the response up to the transaction user.
    case deliver(Response)
    /// Start (or restart) a timer.
    case startTimer(TransactionTimer, Duration)
    /// Cancel a timer.
    case cancelTimer(TransactionTimer)
    /// The transaction is over; forget it.
    case terminate(TransactionEnd)
}

extension ClientTransactionAction: Equatable where Response: Equatable {}
