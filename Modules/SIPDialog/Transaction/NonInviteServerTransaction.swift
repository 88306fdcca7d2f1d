/// The non-INVITE server transaction of RFC 3261 §17.2.2 (Figure 8): a pure state machine.
public struct NonInviteServerTransaction<Response: Sendable>: Sendable {
    public enum State: Sendable, Hashable {
        /// §17.2.2: request received, nothing sent; retransmissions are absorbed.
        case trying
        /// §17.2.2: a provisional was sent; retransmissions get it again.
        case proceeding
        /// §17.2.2: a final was sent; retransmissions get it again until Timer J.
        case completed
        /// Done.
        case terminated
    }

    public private(set) var state: State = .trying
    public let reliable: Bool
    public let timers: TransactionTimers
    private var lastResponse: Response?

    public init(reliable: Bool, timers: TransactionTimers = .rfc3261) {
        self.reliable = reliable
        self.timers = timers
    }

    public typealias Action = ServerTransactionAction<Response>

    /// The TU sends a response.
    public mutating func send(status: Int, _ response: Response) -> [Action] {
        switch (state, status) {
        case (.trying, 100...199), (.proceeding, 100...199):
            state = .proceeding
            lastResponse = response
            return [.sendResponse(response)]
        case (.trying, 200...699), (.proceeding, 200...699):
            lastResponse = response
            let j = timers.timerJ(reliable: reliable)
            if j == .zero {
                state = .terminated
                return [.sendResponse(response), .terminate(.completed)]
            }
            state = .completed
            return [.sendResponse(response), .startTimer(.J, j)]
        default:
            // §17.2.2: in Completed, further TU responses are discarded.
            return []
        }
    }

    /// A retransmission of the request matched this transaction (§17.2.3).
    public mutating func receiveRequestRetransmission() -> [Action] {
        switch state {
        case .proceeding, .completed:
            guard let lastResponse else { return [] }
            return [.sendResponse(lastResponse)]
        case .trying, .terminated:
            return []
        }
    }

    /// A timer this transaction started has fired.
    public mutating func timerFired(_ timer: TransactionTimer) -> [Action] {
        guard state == .completed, timer == .J else { return [] }
        state = .terminated
        return [.terminate(.completed)]
    }

    /// §17.2.4: a response could not be sent.
    public mutating func transportError() -> [Action] {
        switch state {
        case .trying, .proceeding, .completed:
            state = .terminated
            return [.cancelTimer(.J), .terminate(.transportError)]
        case .terminated:
            return []
        }
    }
}
