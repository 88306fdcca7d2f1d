@testable import SIPDialog

/// Virtual time for pure state machines: remembers started timers with absolute deadlines and
/// fires them in deadline order. No wall clock, no sleeps (CONVENTIONS.md §9).
struct VirtualTimers {
    private(set) var now: Duration = .zero
    private var deadlines: [TransactionTimer: Duration] = [:]

    mutating func start(_ timer: TransactionTimer, after: Duration) { deadlines[timer] = now + after }
    mutating func cancel(_ timer: TransactionTimer) { deadlines[timer] = nil }
    var pending: Set<TransactionTimer> { Set(deadlines.keys) }

    /// Removes and returns the next timer due at or before `limit`, moving `now` to its deadline.
    mutating func popNext(upTo limit: Duration) -> TransactionTimer? {
        guard let (timer, deadline) = deadlines.min(by: { $0.value < $1.value || ($0.value == $1.value && $0.key.rawValue < $1.key.rawValue) }),
              deadline <= limit else {
            if limit > now { now = limit }
            return nil
        }
        deadlines[timer] = nil
        now = deadline
        return timer
    }
}

/// Drives a client transaction and records what it did, in virtual time.
struct ClientHarness<Machine> {
    var machine: Machine
    var timers = VirtualTimers()
    var sends: [Duration] = []
    var acks: [Duration] = []
    var delivered: [Int] = []
    var end: TransactionEnd?
    let fire: (inout Machine, TransactionTimer) -> [ClientTransactionAction<Int>]

    mutating func apply(_ actions: [ClientTransactionAction<Int>]) {
        for action in actions {
            switch action {
            case .sendRequest: sends.append(timers.now)
            case .sendACK: acks.append(timers.now)
            case .deliver(let status): delivered.append(status)
            case .startTimer(let t, let d): timers.start(t, after: d)
            case .cancelTimer(let t): timers.cancel(t)
            case .terminate(let why): end = why
            }
        }
    }

    /// Fires every timer due up to `limit`.
    mutating func run(until limit: Duration) {
        while end == nil, let timer = timers.popNext(upTo: limit) {
            apply(fire(&machine, timer))
        }
    }
}

/// Drives a server transaction and records what it sent, in virtual time.
struct ServerHarness<Machine> {
    var machine: Machine
    var timers = VirtualTimers()
    var sent: [(at: Duration, status: Int)] = []
    var absorbedACKs = 0
    var end: TransactionEnd?
    let fire: (inout Machine, TransactionTimer) -> [ServerTransactionAction<Int>]

    mutating func apply(_ actions: [ServerTransactionAction<Int>]) {
        for action in actions {
            switch action {
            case .sendResponse(let status): sent.append((timers.now, status))
            case .absorbedACK: absorbedACKs += 1
            case .startTimer(let t, let d): timers.start(t, after: d)
            case .cancelTimer(let t): timers.cancel(t)
            case .terminate(let why): end = why
            }
        }
    }

    mutating func run(until limit: Duration) {
        while end == nil, let timer = timers.popNext(upTo: limit) {
            apply(fire(&machine, timer))
        }
    }
}

func ms(_ value: Int) -> Duration { .milliseconds(value) }
