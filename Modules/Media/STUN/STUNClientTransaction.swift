/// A STUN client transaction over UDP (RFC 8489 §6.2.1) as a pure state machine.
///
/// The request is sent at 0, RTO, 3·RTO, 7·RTO… (the interval doubles) for ``Timing/rc``
/// transmissions in all; after the last one the client waits ``Timing/rm`` × RTO and then
/// gives up. With RTO 500 ms, Rc 7, Rm 16 the sends are at 0, 0.5, 1.5, 3.5, 7.5, 15.5,
/// 31.5 s and the timeout at 39.5 s (§6.2.1's example). Time is the caller's: it schedules
/// ``Action/startTimer(_:)`` on whatever clock it uses and calls ``timerFired()``.
public struct STUNClientTransaction: Sendable {
    /// RFC 8489 §6.2.1 parameters.
    public struct Timing: Sendable, Hashable {
        /// Initial retransmission timeout (default 500 ms; ICE may use less, RFC 8445 §14.3).
        public var rto: Duration = .milliseconds(500)
        /// Transmissions in all (default 7).
        public var rc: Int = 7
        /// Final wait, in RTOs, after the last transmission (default 16).
        public var rm: Int = 16
        public init(rto: Duration = .milliseconds(500), rc: Int = 7, rm: Int = 16) {
            self.rto = rto
            self.rc = rc
            self.rm = rm
        }
    }

    public enum Action: Sendable, Hashable {
        /// Put these bytes on the wire.
        case send([UInt8])
        /// (Re)arm the single retransmission timer.
        case startTimer(Duration)
        case cancelTimer
        /// A response (success or error) matched: the transaction is over.
        case deliver(STUNMessage)
        /// RFC 8489 §6.2.1: no response; the transaction failed.
        case timedOut
    }

    /// One line per state (RFC 8489 §6.2.1).
    private enum State: Sendable {
        /// Not started.
        case idle
        /// Request sent `sent` times; the current interval is `interval`.
        case waiting(sent: Int, interval: Duration)
        /// The final Rm × RTO wait after the last transmission.
        case finalWait
        /// A response arrived.
        case completed
        /// Gave up.
        case timedOut
    }

    public let request: [UInt8]
    public let transactionID: [UInt8]
    public let timing: Timing
    private var state = State.idle

    public init(request: [UInt8], transactionID: [UInt8], timing: Timing = Timing()) {
        self.request = request
        self.transactionID = transactionID
        self.timing = timing
    }

    public var isFinished: Bool {
        switch state {
        case .completed, .timedOut: true
        default: false
        }
    }

    /// Sends the request and arms the first timer.
    public mutating func start() -> [Action] {
        guard case .idle = state else { preconditionFailure("STUNClientTransaction.start called twice") }
        state = .waiting(sent: 1, interval: timing.rto)
        return [.send(request), .startTimer(timing.rc > 1 ? timing.rto : timing.rto * timing.rm)]
    }

    /// The timer fired: retransmit with a doubled interval, start the final wait, or time out.
    public mutating func timerFired() -> [Action] {
        switch state {
        case .waiting(let sent, let interval):
            if sent >= timing.rc {
                state = .timedOut
                return [.timedOut]
            }
            let next = interval * 2
            if sent + 1 >= timing.rc {
                state = .finalWait
                return [.send(request), .startTimer(timing.rto * timing.rm)]
            }
            state = .waiting(sent: sent + 1, interval: next)
            return [.send(request), .startTimer(next)]
        case .finalWait:
            state = .timedOut
            return [.timedOut]
        case .idle, .completed, .timedOut:
            return []
        }
    }

    /// A datagram parsed as STUN arrived; returns [] if it is not our response.
    public mutating func receive(_ message: STUNMessage) -> [Action] {
        guard message.transactionID == transactionID,
            message.messageClass == .successResponse || message.messageClass == .errorResponse
        else { return [] }
        switch state {
        case .waiting, .finalWait:
            state = .completed
            return [.cancelTimer, .deliver(message)]
        case .idle, .completed, .timedOut:
            return []
        }
    }
}
