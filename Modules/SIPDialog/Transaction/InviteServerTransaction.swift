/// The INVITE server transaction of RFC 3261 §17.2.1 (Figure 7), with RFC 6026's "Accepted"
/// state: a pure state machine that returns actions for its shell to execute.
public struct InviteServerTransaction<Response: Sendable>: Sendable {
    public enum State: Sendable, Hashable {
        /// §17.2.1: INVITE received; the TU may send provisionals; retransmitted INVITEs get the
        /// last provisional again.
        case proceeding
        /// RFC 6026 §8.7: a 2xx was sent; INVITE retransmissions are absorbed until Timer L.
        case accepted
        /// §17.2.1: a 300–699 was sent; Timer G retransmits it (unreliable), Timer H waits for ACK.
        case completed
        /// §17.2.1: the ACK arrived; absorb ACK retransmissions until Timer I.
        case confirmed
        /// Done.
        case terminated
    }

    public private(set) var state: State = .proceeding
    public let reliable: Bool
    public let timers: TransactionTimers
    private var lastResponse: Response?
    private var timerGInterval: Duration

    public init(reliable: Bool, timers: TransactionTimers = .rfc3261) {
        self.reliable = reliable
        self.timers = timers
        self.timerGInterval = timers.t1
    }

    public typealias Action = ServerTransactionAction<Response>

    /// The TU (or the transaction layer's automatic 100 Trying, §17.2.1) sends a response.
    public mutating func send(status: Int, _ response: Response) -> [Action] {
        switch (state, status) {
        case (.proceeding, 100...199):
            lastResponse = response
            return [.sendResponse(response)]
        case (.proceeding, 200...299):
            state = .accepted
            lastResponse = response
            return [.sendResponse(response), .startTimer(.L, timers.transactionTimeout)]
        case (.accepted, 200...299):
            // RFC 6026 §8.7: the TU retransmits its 2xx through the transaction.
            return [.sendResponse(response)]
        case (.proceeding, 300...699):
            state = .completed
            lastResponse = response
            var actions: [Action] = [.sendResponse(response)]
            if !reliable { actions.append(.startTimer(.G, timerGInterval)) }
            actions.append(.startTimer(.H, timers.transactionTimeout))
            return actions
        default:
            // A second final response, or anything after the transaction ended, is not sent.
            return []
        }
    }

    /// A retransmission of the INVITE matched this transaction (§17.2.3).
    public mutating func receiveRequestRetransmission() -> [Action] {
        switch state {
        case .proceeding, .completed:
            guard let lastResponse else { return [] }
            return [.sendResponse(lastResponse)]
        case .accepted, .confirmed, .terminated:
            return []
        }
    }

    /// An ACK matched this transaction (a non-2xx final was sent; §17.2.1).
    public mutating func receiveACK() -> [Action] {
        switch state {
        case .completed:
            let i = timers.waitT4(reliable: reliable)
            var actions: [Action] = [.cancelTimer(.G), .cancelTimer(.H), .absorbedACK]
            if i == .zero {
                state = .terminated
                actions.append(.terminate(.completed))
            } else {
                state = .confirmed
                actions.append(.startTimer(.I, i))
            }
            return actions
        case .proceeding, .accepted, .confirmed, .terminated:
            return []
        }
    }

    /// A timer this transaction started has fired.
    public mutating func timerFired(_ timer: TransactionTimer) -> [Action] {
        switch (state, timer) {
        case (.completed, .G):
            // §17.2.1: G = min(2G, T2).
            timerGInterval = timers.backedOff(timerGInterval)
            guard let lastResponse else { return [] }
            return [.sendResponse(lastResponse), .startTimer(.G, timerGInterval)]
        case (.completed, .H):
            // §17.2.1: no ACK: the TU is told of the failure.
            state = .terminated
            return [.cancelTimer(.G), .terminate(.timeout)]
        case (.confirmed, .I), (.accepted, .L):
            state = .terminated
            return [.terminate(.completed)]
        default:
            return []
        }
    }

    /// §17.2.4: a response could not be sent.
    public mutating func transportError() -> [Action] {
        switch state {
        case .proceeding, .completed, .accepted:
            state = .terminated
            return [.cancelTimer(.G), .cancelTimer(.H), .cancelTimer(.L), .terminate(.transportError)]
        case .confirmed, .terminated:
            return []
        }
    }
}
