/// The INVITE client transaction of RFC 3261 §17.1.1 (Figure 5), with the RFC 6026
/// "Accepted" state: a pure state machine that returns actions for its shell to execute.
public struct InviteClientTransaction<Response: Sendable>: Sendable {
    public enum State: Sendable, Hashable {
        /// Not started yet.
        case idle
        /// §17.1.1.2: INVITE sent; Timer A retransmits on unreliable transports, Timer B times out.
        case calling
        /// §17.1.1.2: a provisional response arrived; no more retransmissions.
        case proceeding
        /// RFC 6026 §8.4: a 2xx arrived; further 2xx (forks, retransmissions) go to the TU until M.
        case accepted
        /// §17.1.1.2: a 300–699 arrived and was ACKed; absorb retransmissions until Timer D.
        case completed
        /// Done.
        case terminated
    }

    public private(set) var state: State = .idle
    public let reliable: Bool
    public let timers: TransactionTimers
    private var timerAInterval: Duration

    /// - Parameters:
    ///   - reliable: the transport is reliable (TCP/TLS/WS/WSS): no retransmissions.
    ///   - timers: T1, T2, T4 (§17.1.1.1; tests shorten them, virtual time runs them).
    public init(reliable: Bool, timers: TransactionTimers = .rfc3261) {
        self.reliable = reliable
        self.timers = timers
        self.timerAInterval = timers.t1
    }

    public typealias Action = ClientTransactionAction<Response>

    /// §17.1.1.2: send the INVITE, start Timer A (unreliable only) and Timer B.
    public mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        state = .calling
        var actions: [Action] = [.sendRequest]
        if !reliable { actions.append(.startTimer(.A, timerAInterval)) }
        actions.append(.startTimer(.B, timers.transactionTimeout))
        return actions
    }

    /// A response matched this transaction (§17.1.3).
    public mutating func receive(status: Int, _ response: Response) -> [Action] {
        switch (state, status) {
        case (.calling, 100...199):
            state = .proceeding
            return [.cancelTimer(.A), .deliver(response)]
        case (.proceeding, 100...199):
            return [.deliver(response)]
        case (.calling, 200...299), (.proceeding, 200...299):
            state = .accepted
            return [.cancelTimer(.A), .cancelTimer(.B), .deliver(response),
                    .startTimer(.M, timers.transactionTimeout)]
        case (.accepted, 200...299):
            return [.deliver(response)]
        case (.calling, 300...699), (.proceeding, 300...699):
            state = .completed
            let d = timers.timerD(reliable: reliable)
            var actions: [Action] = [.cancelTimer(.A), .cancelTimer(.B), .sendACK(response), .deliver(response)]
            if d == .zero {
                state = .terminated
                actions.append(.terminate(.completed))
            } else {
                actions.append(.startTimer(.D, d))
            }
            return actions
        case (.completed, 300...699):
            // §17.1.1.2: retransmitted final response → ACK again, do not pass up.
            return [.sendACK(response)]
        default:
            // Responses in idle/terminated, 1xx after a final, or out-of-range codes are absorbed.
            return []
        }
    }

    /// A timer this transaction started has fired.
    public mutating func timerFired(_ timer: TransactionTimer) -> [Action] {
        switch (state, timer) {
        case (.calling, .A):
            // §17.1.1.2: Timer A doubles each time, without a cap.
            timerAInterval = timerAInterval * 2
            return [.sendRequest, .startTimer(.A, timerAInterval)]
        case (.calling, .B), (.proceeding, .B):
            state = .terminated
            return [.cancelTimer(.A), .terminate(.timeout)]
        case (.completed, .D), (.accepted, .M):
            state = .terminated
            return [.terminate(.completed)]
        default:
            return []
        }
    }

    /// §17.1.1.2 / §8.1.3.1: the transport failed to send the request.
    public mutating func transportError() -> [Action] {
        switch state {
        case .calling, .proceeding:
            state = .terminated
            return [.cancelTimer(.A), .cancelTimer(.B), .terminate(.transportError)]
        case .completed, .accepted:
            // A failed ACK or a lost 2xx retransmission does not change the outcome.
            return []
        case .idle, .terminated:
            return []
        }
    }
}
