/// What a server transaction asks its shell to do (RFC 3261 §17.2).
public enum ServerTransactionAction<Response: Sendable>: Sendable {
    /// Send this response (first transmission or retransmission of the last one).
    case sendResponse(Response)
    /// Pass the ACK for a non-2xx final response up (the TU may log it; §17.2.1 absorbs it).
    case absorbedACK
    /// Start (or restart) a timer.
    case startTimer(TransactionTimer, Duration)
    /// Cancel a timer.
    case cancelTimer(TransactionTimer)
    /// The transaction is over; forget it.
    case terminate(TransactionEnd)
}

extension ServerTransactionAction: Equatable where Response: Equatable {}
