import PushKitEmu
import SIPDialog

@testable import WakeGateway

/// Drives one ``HeldCallMachine`` in virtual time, without sockets: executes its actions into
/// lists the tests read (what went upstream, what went downstream, the reports), keeps its timers
/// as absolute deadlines and fires them in deadline order (CONVENTIONS.md §9: no wall clock).
/// Downstream responses are plain status codes (`R = Int`).
struct HeldCallRig {
    typealias Machine = HeldCallMachine<Int>

    var machine: Machine
    private(set) var now: Duration = .zero
    private(set) var deadlines: [Machine.Timer: Duration] = [:]
    /// Upstream, in order: "100", "480", "relay 180", … (with the virtual time sent).
    private(set) var upstream: [(at: Duration, what: String)] = []
    /// Downstream, in order: "INVITE phone", "INVITE phone again", "ACK 486", "CANCEL", "ACK+BYE 200".
    private(set) var downstream: [String] = []
    private(set) var reports: [Machine.Report] = []
    private(set) var qualifies = 0
    private(set) var pushes = 0
    private(set) var revoked = false
    private(set) var freed = false

    /// Short timers so the whole call fits in a few virtual seconds; T1 = 500 ms (§17.1.1.1).
    /// `ringMs`: the decision's ring timeout (20 s, inside Timer B's 64·T1 = 32 s, unless given).
    static func settings(failoverURI: Bool = false, goneNotice: Bool = false, ringMs: Int64 = 20_000)
        -> Machine.Settings
    {
        var decision = EmulatorSettings()
        decision.ackWindowMs = 2_000
        decision.registerWaitMs = 6_000
        decision.qualifyTimeoutMs = 500
        decision.inviteTimeoutMs = ringMs
        return Machine.Settings(decision: decision, hasFailoverURI: failoverURI, goneNotice: goneNotice)
    }

    /// A call that has just arrived (100 sent, the decision's first step taken; with
    /// `decided: false` only the 100, as while the gateway reads a shared store).
    init(
        live: Bool = false, token: Bool = true, failoverURI: Bool = false, goneNotice: Bool = false,
        decided: Bool = true, ringMs: Int64 = 20_000
    ) {
        machine = Machine(settings: Self.settings(failoverURI: failoverURI, goneNotice: goneNotice, ringMs: ringMs))
        var m = machine
        let actions = decided ? m.start(registrationLive: live, hasToken: token) : m.received()
        machine = m
        apply(actions)
    }

    /// Runs one event on the machine and executes what it returns.
    mutating func on(_ event: (inout Machine) -> [Machine.Action]) {
        apply(event(&machine))
    }

    mutating func apply(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .sendUpstream(.trying): upstream.append((now, "100"))
            case .sendUpstream(.local(let status, _)): upstream.append((now, "\(status)"))
            case .sendUpstream(.relay(let status)): upstream.append((now, "relay \(status)"))
            case .sendQualify: qualifies += 1
            case .sendPush: pushes += 1
            case .sendDownstream(let leg, let again): downstream.append("INVITE \(Self.name(leg))" + (again ? " again" : ""))
            case .ackDownstream(let status): downstream.append("ACK \(status)")
            case .cancelDownstream: downstream.append("CANCEL")
            case .endAnsweredNotice(let status, let again): downstream.append("ACK+BYE \(status)" + (again ? " again" : ""))
            case .revokePush: revoked = true
            case .startTimer(let timer, let after): deadlines[timer] = now + after
            case .cancelTimer(let timer): deadlines[timer] = nil
            case .emit(let report): reports.append(report)
            case .free: freed = true
            }
        }
    }

    static func name(_ leg: Machine.Leg) -> String {
        switch leg {
        case .phone(let direct): direct ? "direct" : "phone"
        case .failover: "failover"
        case .goneNotice: "notice"
        }
    }

    /// Fires every timer due up to `now + by`, in deadline order, then moves `now` there.
    mutating func advance(by: Duration) {
        let limit = now + by
        while let (timer, deadline) = deadlines.min(by: { ($0.value, "\($0.key)") < ($1.value, "\($1.key)") }),
            deadline <= limit, !freed
        {
            deadlines[timer] = nil
            now = deadline
            on { $0.timerFired(timer) }
        }
        now = limit
    }

    /// What went upstream, without the times.
    var sentUpstream: [String] { upstream.map(\.what) }

    /// The final answers the caller got (our own or relayed), in order.
    var finals: [String] {
        sentUpstream.filter { $0 != "100" && !$0.hasPrefix("relay 1") }
    }

    var pending: Set<Machine.Timer> { Set(deadlines.keys) }

    /// The decision's timers only (the ones a wake row is about).
    var pendingDecisionTimers: Set<Machine.Timer> {
        pending.intersection([.qualify, .ackWindow, .registerWait, .ring, .goneFallback])
    }
}
