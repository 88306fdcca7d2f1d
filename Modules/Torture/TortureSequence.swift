import SIPCore

/// The run over one transport as a pure state machine: one `mutating func` per event, each
/// returning the actions for the shell (``TortureRunner``) to carry out. No socket, no clock:
/// timers are actions and their expiry is an event, so every path is tested in virtual time.
///
/// The order is OPTIONS, message 1, OPTIONS, message 2, …, message N, OPTIONS: the OPTIONS after
/// a message is the one before the next. A message's result is reported once the OPTIONS after
/// it is answered (answers that arrive late still count for it), or, when that OPTIONS gets no
/// answer within the timeout, with the run's end: the server stopped answering after it.
/// Over a stream every message gets a fresh connection (opened before its OPTIONS), so one
/// message's framing error cannot swallow the next one (RFC 3261 §18.3).
public struct TortureSequence: Sendable {
    public struct Configuration: Sendable {
        public var cases: [TortureCase]
        /// TCP, TLS, WS or WSS (a connection per message); false for UDP.
        public var reliable: Bool
        /// The Via transport token of the OPTIONS.
        public var viaTransport: String
        /// The server as a URI host and port, for the OPTIONS Request-URI.
        public var target: String
        /// How long to wait for the answers to a torture message (less when a final one settles it).
        public var wait: Duration
        /// How long an OPTIONS may go unanswered before the server counts as stopped.
        public var timeout: Duration
        /// Appended to the From tag of every request (``TortureEdit/fromTag``).
        public var tagSuffix: String

        public init(
            cases: [TortureCase], reliable: Bool, viaTransport: String, target: String, wait: Duration,
            timeout: Duration, tagSuffix: String
        ) {
            self.cases = cases
            self.reliable = reliable
            self.viaTransport = viaTransport
            self.target = target
            self.wait = wait
            self.timeout = timeout
            self.tagSuffix = tagSuffix
        }
    }

    public enum Event: Sendable, Hashable {
        /// The connection (or the UDP socket) is up; `sentBy` is its local `ip:port`.
        case connected(sentBy: String)
        case connectFailed(String)
        case received(TortureAnswer)
        /// The server closed the connection.
        case closed
        case timerFired(Int)
    }

    public enum Sending: Sendable, Hashable {
        case ping(Int)
        case message(String)
    }

    public enum Action: Sendable, Hashable {
        /// Open a connection (or the UDP socket) and report ``Event/connected(sentBy:)``.
        case connect
        /// Close the current connection; its events are of no interest any more.
        case close
        case send([UInt8], Sending)
        /// Fire ``Event/timerFired(_:)`` with this id after the duration (an older timer is stale).
        case startTimer(Int, Duration)
        case report(TortureResult)
        case finish(TortureEnd)
    }

    enum Phase: Sendable {
        case idle, connecting, pinging, waiting, done
    }

    /// The message being sent or waited for, or waiting for its OPTIONS after.
    struct Current: Sendable {
        var torture: TortureCase
        var changes: [TortureChange]
        var size: Int
        var observation = TortureObservation()
    }

    public let configuration: Configuration
    let ids: any IdentifierSource
    var phase = Phase.idle
    /// The index of the next OPTIONS (0…N) or of the message being waited for.
    var index = 0
    var sentBy: String?
    var ping: TorturePing?
    var timer = 0
    /// The message sent and being waited for (phase waiting), or whose OPTIONS after is out.
    var current: Current?

    public init(_ configuration: Configuration, ids: any IdentifierSource) {
        self.configuration = configuration
        self.ids = ids
    }

    /// True once ``Action/finish(_:)`` was returned.
    public var isDone: Bool { phase == .done }

    public mutating func start() -> [Action] {
        guard phase == .idle else { return [] }
        phase = .connecting
        return [.connect]
    }

    public mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (.connecting, .connected(let sentBy)):
            self.sentBy = sentBy
            return sendPing()
        case (.connecting, .connectFailed(let reason)):
            return stop("connection failed: \(reason)")
        case (.pinging, .received(let answer)):
            guard answer.callID == ping?.callID else {
                current?.observation.answers.append(answer)  // late, for the previous message
                return []
            }
            return pingAnswered()
        case (.pinging, .closed):
            return stop("the server closed the connection instead of answering OPTIONS")
        case (.pinging, .timerFired(let id)) where id == timer:
            return stop("no answer to OPTIONS within \(configuration.timeout)")
        case (.waiting, .received(let answer)):
            guard answer.callID != ping?.callID, var current else { return [] }
            current.observation.answers.append(answer)
            self.current = current
            let settles = current.torture.expectation(reliable: configuration.reliable).settlesOnFinalResponse
            return answer.isFinal && settles ? endWait() : []
        case (.waiting, .closed):
            current?.observation.closed = true
            return endWait()
        case (.waiting, .timerFired(let id)) where id == timer:
            return endWait()
        default:
            return []
        }
    }

    mutating func sendPing() -> [Action] {
        guard let sentBy else { return stop("no local address") }
        let ping = TorturePing(
            target: configuration.target, transport: configuration.viaTransport, sentBy: sentBy, sequence: index,
            ids: ids)
        self.ping = ping
        phase = .pinging
        timer += 1
        return [.send(ping.bytes, .ping(index)), .startTimer(timer, configuration.timeout)]
    }

    mutating func pingAnswered() -> [Action] {
        var actions = current.map { [Action.report(result($0, aliveAfter: true))] } ?? []
        current = nil
        guard index < configuration.cases.count else {
            phase = .done
            return actions + [.close, .finish(.completed)]
        }
        let torture = configuration.cases[index]
        let rewriter = TortureRewriter(sentBy: sentBy ?? "", tagSuffix: configuration.tagSuffix)
        let (bytes, changes) = rewriter.apply(torture.edits, to: TortureCorpus.bytes(of: torture))
        current = Current(torture: torture, changes: changes, size: bytes.count)
        phase = .waiting
        timer += 1
        actions += [.send(bytes, .message(torture.name)), .startTimer(timer, configuration.wait)]
        return actions
    }

    mutating func endWait() -> [Action] {
        index += 1
        timer += 1  // the wait's timer is stale now
        if configuration.reliable {
            phase = .connecting
            return [.close, .connect]
        }
        return sendPing()
    }

    mutating func stop(_ reason: String) -> [Action] {
        phase = .done
        timer += 1
        let after = current?.torture.name ?? (index > 0 ? configuration.cases[index - 1].name : nil)
        var actions = current.map { [Action.report(result($0, aliveAfter: false))] } ?? []
        current = nil
        actions += [.close, .finish(.stopped(after: after, reason: reason))]
        return actions
    }

    func result(_ current: Current, aliveAfter: Bool) -> TortureResult {
        TortureResult(
            torture: current.torture, changes: current.changes, size: current.size, observation: current.observation,
            verdict: TortureOracle.judge(current.torture, reliable: configuration.reliable, current.observation),
            aliveAfter: aliveAfter)
    }
}
