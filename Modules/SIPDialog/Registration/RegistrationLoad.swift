import SIPCore

/// Many registrations stepped in one loop over one flow: the pure core of load generation
/// (`astra-register --load`, decision D13).
///
/// Each line is a ``RegistrationClient`` value with at most one REGISTER in flight, run by its
/// own ``NonInviteClientTransaction`` (RFC 3261 §17.1.2: Timer E retransmits on unreliable
/// transports, Timer F times out). A response is one dictionary look-up (top-Via branch), one
/// transaction step and one registration step; the next REGISTER lands in ``outgoing``. The
/// shell owns the socket and the clock: it feeds ``receive(_:now:)`` and ``fireTimers(now:)``,
/// sends what ``takeOutgoing()`` returns, and reports what ``takeOutcomes()`` returns. No task,
/// actor or continuation per line or per message.
///
/// Timer K (§17.1.2.2, absorbing retransmitted finals) is not kept: once a transaction has its
/// final response its branch is forgotten, and a late copy matches nothing and is dropped — the
/// same effect, without a timer per finished request.
///
/// A line's phase is bounded by `lineTimeout` (`--timeout`: a silent server fails each line
/// then, not after Timer F's 32 s). By default a phase starts `concurrency` lines and starts the
/// next as each ends; a ``paced`` engine starts a line only when its shell calls
/// ``startNext(now:)`` (the shell asks ``LoadRunControl`` for `--rate`, `--duration`, stops).
package struct RegistrationLoad: Sendable {
    /// What a phase does to each line.
    public enum Phase: Sendable {
        /// Register every line, `concurrency` at a time.
        case register
        /// Unregister every line whose registration succeeded (REGISTER with expiry 0).
        case unregister
    }

    /// How one line's phase ended.
    public struct Outcome: Sendable {
        public var index: Int
        /// From the line's first REGISTER to its final result.
        public var latency: Duration
        public var result: Result
        /// A held line's refresh (``holdsBindings``): how late its REGISTER left after the
        /// refresh time the client asked for, and whether the answer came before the previous
        /// binding expired (RFC 3261 §10.2.4: a refresh that lands after expiry is a new binding,
        /// the line was unreachable in between). Nil for a first registration.
        public var refresh: Refresh?

        public struct Refresh: Sendable, Hashable {
            public var lateness: Duration
            public var beforeExpiry: Bool
        }

        public enum Result: Sendable {
            case registered(RegistrationResult)
            case unregistered
            case failed(RegistrationFailure)
            /// The run stopped (signal, run timeout) while the line was in flight.
            case abandoned
        }
    }

    /// One line: its registration and the transaction of the REGISTER in flight.
    struct Slot: Sendable {
        var client: RegistrationClient
        var transaction = NonInviteClientTransaction<SIPResponse>(reliable: false)
        var request: [UInt8] = []
        var branch: String?
        var started: Duration = .zero
        var active = false
        var registered = false
        /// Stamps of the live Timer E and F and of the line's deadline (a heap entry with
        /// another stamp was cancelled).
        var stampE: UInt32 = 0
        var stampF: UInt32 = 0
        var stampLine: UInt32 = 0
        var stampRefresh: UInt32 = 0
        /// A line on a flow of its own (line-driven engines): its Via sent-by and binding.
        var ownSentBy: ViaSentBy?
        var ownBinding: LocalBinding?
        /// When the refresh in flight was due, and when the binding it refreshes expires.
        var refreshDue: Duration?
        var expiresAt: Duration?
    }

    enum TimerKind: UInt8, Sendable {
        case e, f
        /// The line's phase bound (`lineTimeout`).
        case line
        /// A held binding's refresh (``holdsBindings``).
        case refresh
    }

    struct TimerEntry: Sendable {
        var slot: Int32
        var kind: TimerKind
        var stamp: UInt32
    }

    var slots: [Slot]
    let binding: LocalBinding
    /// The sent-by every REGISTER carries in its Via (RFC 3261 §18.1.2).
    let sentBy: ViaSentBy
    let reliable: Bool
    let timers: TransactionTimers
    let concurrency: Int
    let lineTimeout: Duration?
    /// Lines start only through ``startNext(now:)`` (the shell paces them).
    public let paced: Bool
    /// With ``paced``: after the last queued line, start again from the first (`--duration`).
    public let cycles: Bool
    var phase: Phase = .register
    var queue: [Int] = []
    var nextInQueue = 0
    var running = 0
    var byBranch: [String: Int] = [:]
    var heap = DeadlineHeap<TimerEntry>()
    var compactAt = 256
    var outgoing: [[UInt8]] = []
    /// The line of each ``outgoing`` message (line-driven engines send each on its line's flow).
    var outgoingLines: [Int32] = []
    var outcomes: [Outcome] = []
    var events: [(index: Int, event: RegistrationEvent)] = []

    /// Keep every registration event (registering, challenged, …) for ``takeEvents()``: a
    /// one-shot registration reports them; load mode does not pay for them.
    public var recordsEvents = false

    /// Keep each registered line's binding: run the refresh timer the registration asks for
    /// (RFC 3261 §10.2.4) and send the refresh then, reporting it as an ``Outcome`` with
    /// ``Outcome/refresh`` (a fleet of held lines). Off: a registered line stays as it is until
    /// the shell starts it again (a load run's cycles).
    public var holdsBindings = false

    /// - Parameters:
    ///   - clients: one idle registration per line, in line order (``Outcome/index`` refers to it).
    ///   - binding: where the lines are reachable on the shared flow (Via, Contact).
    ///   - reliable: the flow's transport is reliable (no retransmissions, RFC 3261 §17.1.2.2).
    ///   - lineTimeout: a line still without its outcome this long after it started fails (`.timeout`).
    ///   - paced: start lines only in ``startNext(now:)``; `cycles`: then restart the queue when
    ///     it runs out, skipping lines still in flight.
    public init(clients: [RegistrationClient], binding: LocalBinding, reliable: Bool, concurrency: Int,
                timers: TransactionTimers = .rfc3261, lineTimeout: Duration? = nil, paced: Bool = false,
                cycles: Bool = false) {
        // Every line renders its REGISTERs as bytes, with the binding's Via formatted once.
        let viaPrefix = RegisterRequestBuilder.viaPrefix(binding)
        slots = clients.map { client in
            var client = client
            client.rendersWire = true
            if let viaPrefix { client.builder.shareViaPrefix(viaPrefix, for: binding) }
            return Slot(client: client)
        }
        self.binding = binding
        self.sentBy = ViaSentBy(host: binding.host, port: binding.port)
        self.reliable = reliable
        self.timers = timers
        self.concurrency = max(1, concurrency)
        self.lineTimeout = lineTimeout
        self.paced = paced
        self.cycles = paced && cycles
        byBranch.reserveCapacity(2 * self.concurrency)
    }

    /// Starts a phase: the first `concurrency` lines send their REGISTER.
    public mutating func begin(_ phase: Phase, now: Duration) {
        self.phase = phase
        switch phase {
        case .register: queue = Array(slots.indices)
        case .unregister: queue = slots.indices.filter { slots[$0].registered }
        }
        nextInQueue = 0
        stoppedStarting = false
        if !paced || phase == .unregister { launchWhileRoom(now: now) }
    }

    /// True when every line of the phase has its outcome (a paced phase: none in flight and
    /// none left to start, or the shell stopped starting them — see ``stopStarting()``).
    public var isFinished: Bool { running == 0 && (nextInQueue >= queue.count && !cycling || stoppedStarting) }

    /// Lines in flight.
    public var inFlight: Int { running }

    /// Whether ``startNext(now:)`` would start a line (one is queued and there is room).
    public var canStart: Bool {
        guard !stoppedStarting, running < concurrency else { return false }
        if nextInQueue < queue.count { return true }
        return cycling && running < queue.count
    }

    /// A paced phase: starts the next queued line; false when none can start. Cycling, a line
    /// still in flight is skipped, a registered one refreshes (a new REGISTER, RFC 3261 §10.2.4)
    /// and a failed one is not tried again.
    @discardableResult
    public mutating func startNext(now: Duration) -> Bool {
        guard canStart else { return false }
        for _ in 0..<2 {
            if nextInQueue >= queue.count {
                guard cycling else { return false }
                nextInQueue = 0  // from the top again
            }
            while nextInQueue < queue.count, !startable(queue[nextInQueue]) { nextInQueue += 1 }
            if nextInQueue < queue.count { return launchNext(now: now) }
        }
        return false
    }

    func startable(_ index: Int) -> Bool {
        guard !slots[index].active else { return false }
        guard phase == .register else { return true }
        switch slots[index].client.state {
        case .idle, .registered: return true
        default: return false
        }
    }

    /// No line starts any more in this phase; those in flight go on (or ``abandonInFlight(now:)``).
    public mutating func stopStarting() { stoppedStarting = true }

    /// The run stopped: every line in flight ends now as ``Outcome/Result/abandoned`` (its
    /// transaction is forgotten; a late response matches nothing). No new line starts.
    public mutating func abandonInFlight(now: Duration) {
        stoppedStarting = true
        // A line abandoned while registering is not unregistered: its REGISTER may still bind
        // it (the binding then expires), but a stop must not wait for a server that is silent.
        for index in slots.indices where slots[index].active { finish(index, .abandoned, now: now) }
    }

    var cycling: Bool { cycles && phase == .register }
    var stoppedStarting = false

    /// The registration of line `index` (its state after the phases run so far).
    public func client(_ index: Int) -> RegistrationClient { slots[index].client }

    /// Lines in the engine.
    public var lineCount: Int { slots.count }

    // Lines driven one by one: RegistrationLoad+Lines.swift.

    /// Messages to send, in order (whole SIP messages); empties the list.
    public mutating func takeOutgoing() -> [[UInt8]] {
        defer {
            outgoing.removeAll(keepingCapacity: true)
            outgoingLines.removeAll(keepingCapacity: true)
        }
        return outgoing
    }

    /// Messages to send with the line each belongs to, in order; empties the list.
    public mutating func takeOutgoingByLine() -> [(line: Int, bytes: [UInt8])] {
        defer {
            outgoing.removeAll(keepingCapacity: true)
            outgoingLines.removeAll(keepingCapacity: true)
        }
        return zip(outgoingLines, outgoing).map { (Int($0), $1) }
    }

    /// Lines that finished since the last call; empties the list.
    public mutating func takeOutcomes() -> [Outcome] {
        defer { outcomes.removeAll(keepingCapacity: true) }
        return outcomes
    }

    /// The registration events since the last call, in order, with their line (only with
    /// ``recordsEvents``); empties the list.
    public mutating func takeEvents() -> [(index: Int, event: RegistrationEvent)] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// Whether anything waits in ``takeOutgoing()`` or ``takeOutcomes()``.
    public var hasOutput: Bool { !outgoing.isEmpty || !outcomes.isEmpty }

    /// A response from the flow (§17.1.3: matched by top-Via branch; CSeq is checked by the
    /// registration). Responses that match no REGISTER in flight are dropped, and so are those
    /// with more than one Via (§8.1.3.3) or a Via sent-by other than ours (§18.1.2), as the
    /// endpoint does: one byte scan of the Via line, no ``SIPVia`` built.
    public mutating func receive(_ response: SIPResponse, now: Duration) {
        guard case .single(let via) = response.headers.responseVia,
              let branch = response.headers.topViaBranch, let index = byBranch[branch],
              via == (slots[index].ownSentBy ?? sentBy) else { return }
        let actions = slots[index].transaction.receive(status: response.statusCode, response)
        perform(actions, slot: index, now: now)
    }

    /// The earliest running timer's deadline.
    public mutating func nextDeadline() -> Duration? {
        while let top = heap.first {
            if isLive(top.payload) { return top.deadline }
            heap.popFirst()
        }
        return nil
    }

    /// Fires every timer due at `now`.
    public mutating func fireTimers(now: Duration) {
        while let (deadline, top) = heap.first, deadline <= now {
            heap.popFirst()
            guard isLive(top) else { continue }
            let index = Int(top.slot)
            switch top.kind {
            case .line:
                // --timeout: the line's phase took too long (a silent registrar, a lost 401 round).
                finish(index, .failed(.timeout), now: now)
            case .refresh:
                guard !slots[index].active else { continue }
                slots[index].refreshDue = deadline
                activate(index, now: now)
                apply(slots[index].client.timerFired(.refresh), slot: index, now: now)
            case .e, .f:
                if top.kind == .e { slots[index].stampE &+= 1 } else { slots[index].stampF &+= 1 }
                let actions = slots[index].transaction.timerFired(top.kind == .e ? .E : .F)
                perform(actions, slot: index, now: now)
            }
        }
    }

    /// The transport could not send; every line in flight fails its transaction (§8.1.3.1).
    public mutating func transportFailed(now: Duration) {
        for index in slots.indices where slots[index].active && slots[index].branch != nil {
            perform(slots[index].transaction.transportError(), slot: index, now: now)
        }
    }

    // Stepping and the timer heap: RegistrationLoad+Stepping.swift.
}
