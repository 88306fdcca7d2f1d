/// The non-INVITE client transaction of RFC 3261 §17.1.2 (Figure 6): a pure state machine.
public struct NonInviteClientTransaction<Response: Sendable>: Sendable {
    public enum State: Sendable, Hashable {
        /// Not started yet.
        case idle
        /// §17.1.2.2: request sent; Timer E retransmits (unreliable), Timer F times out.
        case trying
        /// §17.1.2.2: a provisional arrived; retransmissions continue every T2.
        case proceeding
        /// §17.1.2.2: a final response arrived; absorb retransmissions until Timer K.
        case completed
        /// Done.
        case terminated
    }

    public private(set) var state: State = .idle
    public let reliable: Bool
    public let timers: TransactionTimers
    private var timerEInterval: Duration

    public init(reliable: Bool, timers: TransactionTimers = .rfc3261) {
        self.reliable = reliable
        self.timers = timers
        self.timerEInterval = timers.t1
    }

    public typealias Action = ClientTransactionAction<Response>

    /// §17.1.2.2: send the request, start Timer E (unreliable only) and Timer F.
    public mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        state = .trying
        var actions: [Action] = [.sendRequest]
        if !reliable { actions.append(.startTimer(.E, timerEInterval)) }
        actions.append(.startTimer(.F, timers.transactionTimeout))
        return actions
    }

    /// A response matched this transaction (§17.1.3).
    public mutating func receive(status: Int, _ response: Response) -> [Action] {
        switch (state, status) {
        case (.trying, 100...199), (.proceeding, 100...199):
            state = .proceeding
            return [.deliver(response)]
        case (.trying, 200...699), (.proceeding, 200...699):
            let k = timers.waitT4(reliable: reliable)
            var actions: [Action] = [.cancelTimer(.E), .cancelTimer(.F), .deliver(response)]
            if k == .zero {
                state = .terminated
                actions.append(.terminate(.completed))
            } else {
                state = .completed
                actions.append(.startTimer(.K, k))
            }
            return actions
        default:
            // §17.1.2.2: retransmitted finals in Completed are absorbed, as is anything else.
            return []
        }
    }

    /// A timer this transaction started has fired.
    public mutating func timerFired(_ timer: TransactionTimer) -> [Action] {
        switch (state, timer) {
        case (.trying, .E):
            // §17.1.2.2: E = min(2E, T2) while Trying.
            timerEInterval = timers.backedOff(timerEInterval)
            return [.sendRequest, .startTimer(.E, timerEInterval)]
        case (.proceeding, .E):
            // §17.1.2.2: in Proceeding, retransmit every T2.
            timerEInterval = timers.t2
            return [.sendRequest, .startTimer(.E, timerEInterval)]
        case (.trying, .F), (.proceeding, .F):
            state = .terminated
            return [.cancelTimer(.E), .terminate(.timeout)]
        case (.completed, .K):
            state = .terminated
            return [.terminate(.completed)]
        default:
            return []
        }
    }

    /// §17.1.2.2 / §8.1.3.1: the transport failed to send the request.
    public mutating func transportError() -> [Action] {
        switch state {
        case .trying, .proceeding:
            state = .terminated
            return [.cancelTimer(.E), .cancelTimer(.F), .terminate(.transportError)]
        case .idle, .completed, .terminated:
            return []
        }
    }
}
