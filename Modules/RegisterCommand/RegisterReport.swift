import AstraJSON
import SIPCore
import SIPDialog
import SIPTransport
import LineRunner
import ToolSupport

/// Collects what happened during a run and renders it: event lines, the final `result` object
/// (stable field names, docs/man/astra-register.md) and the Nagios status line.
///
/// Timings are wire stamps (``WireTimings``, the clock `--sip-trace` prints): the connection
/// up as the flow saw it, the first REGISTER sent, the first response and the registering 2xx
/// received — not when this tool dequeued the events that report them.
struct RegisterReport {
    let setup: LineSetup
    let start: WireTime
    let wire: WireTimings
    var flowUpAt: WireTime?
    var registeredAt: WireTime?
    var endAt: WireTime?
    var result: RegistrationResult?
    var failure: RegistrationFailure?
    var local: String?
    var registered = false
    /// After the run: the binding was removed (nil when there was none to remove).
    var unregistered: Bool?
    var qualified = false
    var qualifyFrom: String?
    var challenges = 0
    var refreshes = 0
    var flowLosses = 0
    /// The expiry asked for (`--expires`, the line's, else 3600) and the one the first REGISTER
    /// carried (different only under `--expires-policy`).
    var expiresRequested: UInt32?
    var expiresSent: UInt32?
    /// The registrar's Min-Expires from a 423 Interval Too Brief (RFC 3261 §10.2.8).
    var minExpires: UInt32?

    init(setup: LineSetup, start: WireTime, wire: WireTimings) {
        self.setup = setup
        self.start = start
        self.wire = wire
    }

    /// Records what is asked and what is sent; a clamp by `--expires-policy` is said on stderr.
    mutating func noteExpires(_ settings: RegistrationSettings, diagnostics: Diagnostics) {
        expiresRequested = settings.requestedExpires
        expiresSent = settings.clampedExpires
        if let bounds = settings.expiresBounds, settings.clampedExpires != settings.requestedExpires {
            diagnostics.error(
                "note: expires \(settings.requestedExpires) s clamped to \(settings.clampedExpires) s by "
                    + "--expires-policy \(bounds.lowerBound):\(bounds.upperBound)")
        }
    }

    /// What the run is waiting for, for the timeout message.
    var waitingFor: String {
        if flowUpAt == nil { return "the \(setup.transport) connection to \(setup.target)" }
        if !registered { return "the registrar's answer" }
        return "the server's OPTIONS (qualify)"
    }

    /// `connectedAt`: when the flow reported by a `.flowUp` came up (``FlowInfo/connectedAt``).
    mutating func note(_ event: LineEvent, connectedAt: WireTime? = nil, output: EventWriter?) {
        switch event {
        case .flowUp(let binding, let reliable):
            if flowUpAt == nil { flowUpAt = connectedAt ?? WireTime.now() }
            local = binding.host + (binding.port.map { ":\($0)" } ?? "")
            output?.emit("flow_up", ["transport": .string(setup.transport.rawValue), "server": .string(setup.target.description),
                                     "local": .string(local ?? ""), "reliable": .bool(reliable)],
                         text: "connected to \(setup.target) over \(setup.transport.viaToken) from \(local ?? "?")")
        case .flowDown(let error):
            flowLosses += 1
            output?.emit("flow_down", ["reason": .string(error.description)], text: "connection lost: " + FailureWords.explain(error.description, setup: setup))
        case .reconnectScheduled(let attempt, let after):
            output?.emit("reconnect_scheduled", ["attempt": .int(attempt), "after_ms": .int(after.milliseconds)],
                         text: "reconnecting in \(after.milliseconds) ms (attempt \(attempt))")
        case .qualifyAnswered(let from):
            qualified = true
            qualifyFrom = from
            output?.emit("qualify_answered", ["from": .string(from)], text: "answered the server's OPTIONS (qualify) from \(from)")
        case .discarded(let why):
            output?.emit("discarded", ["reason": .string(why)], text: "ignored a message: \(why)")
        case .registration(let registration):
            note(registration, output: output)
        }
    }

    private mutating func note(_ event: RegistrationEvent, output: EventWriter?) {
        switch event {
        case .registering(let expires, let attempt):
            output?.emit("registering", ["expires": .int(Int(expires)), "attempt": .int(attempt)],
                         text: "REGISTER sent (expires \(expires) s)")
        case .challenged(let status, let algorithm):
            challenges += 1
            output?.emit("challenged", ["status": .int(status), "algorithm": .string(algorithm)],
                         text: "challenged (\(status), digest \(algorithm)): answering with the credentials")
        case .intervalTooBrief(let minimum):
            minExpires = minimum
            output?.emit("interval_too_brief", ["min_expires": .int(Int(minimum))],
                         text: "the registrar wants at least \(minimum) s (423 Interval Too Brief): asking again")
        case .registered(let result):
            // The 2xx that registered arrived before this event: its wire stamp is the latest.
            if registeredAt == nil { registeredAt = wire.current.lastSuccess ?? WireTime.now() }
            if result.isRefresh { refreshes += 1 }
            registered = true
            self.result = result
            failure = nil
            output?.emit(
                "registered", registeredFields(result),
                text: (result.isRefresh ? "registration refreshed" : "registered \(setup.aor)")
                    + ", expires \(result.grantedExpires) s")
        case .unregistered:
            output?.emit("unregistered", text: "unregistered (the binding is removed)")
        case .failed(let failure):
            self.failure = failure
            var fields: JSONObject = ["reason": .string(failure.description)]
            if let status = failure.status { fields["status"] = .int(status) }
            output?.emit("failed", fields, text: "failed: " + FailureWords.explain(failure.description, setup: setup))
        case .retryScheduled(let after):
            output?.emit("retry_scheduled", ["after_ms": .int(after.milliseconds)], text: "retrying in \(after.milliseconds) ms")
        case .flowLost:
            registered = false
        }
    }

    mutating func finish() { endAt = WireTime.now() }

    private func registeredFields(_ result: RegistrationResult) -> JSONObject {
        [
            "expires": .int(Int(result.grantedExpires)),
            "refresh": .bool(result.isRefresh),
            "auth_algorithm": result.authAlgorithm.map(JSONValue.string) ?? .null,
            "bindings": .array(result.bindings.map { .string(Redaction.redact($0)) }),
        ]
    }

    private func ms(_ from: WireTime?, _ to: WireTime?) -> JSONValue {
        guard let from, let to else { return .null }
        return .double(to.milliseconds(since: from))
    }

    /// The final `result` object.
    func result(exit: ExitCode, message: String?) -> JSONObject {
        var fields: JSONObject = [
            "registered": .bool(result != nil && exit == .success),
            "aor": .string(setup.aor.description),
            "transport": .string(setup.transport.rawValue),
            "server": .string(setup.target.description),
            "local": local.map(JSONValue.string) ?? .null,
            "expires": result.map { .int(Int($0.grantedExpires)) } ?? .null,
            "expires_requested": expiresRequested.map { .int(Int($0)) } ?? .null,
            "expires_sent": expiresSent.map { .int(Int($0)) } ?? .null,
            "min_expires": minExpires.map { .int(Int($0)) } ?? .null,
            "auth_algorithm": result?.authAlgorithm.map(JSONValue.string) ?? .null,
            "bindings": .array((result?.bindings ?? []).map { .string(Redaction.redact($0)) }),
            "challenges": .int(challenges),
        ]
        if qualified { fields["qualify_from"] = .string(qualifyFrom ?? "") }
        fields["qualified"] = .bool(qualified)
        fields["unregistered"] = unregistered.map(JSONValue.bool) ?? .null
        if let failure {
            fields["status"] = failure.status.map(JSONValue.int) ?? .null
            fields["reason"] = .string(failure.description)
        } else if let message {
            fields["reason"] = .string(message)
        }
        let stamps = wire.current
        fields["timings_ms"] = .object([
            "connect": ms(start, flowUpAt),
            "first_response": ms(stamps.firstRequest, stamps.firstResponse),
            "register": ms(stamps.firstRequest, registeredAt),
            "total": ms(start, endAt),
        ])
        fields["exit"] = .int(Int(exit.rawValue))
        return fields
    }

    /// The monitoring plugin result (Monitoring Plugins guidelines): the state from the
    /// outcome and the thresholds on the registration time, the status text, and perfdata
    /// `time=…s;warn;crit;0;timeout` plus the connect and register phases.
    func monitoringStatus(
        exit: ExitCode, message: String?, warning: MonitoringRange?, critical: MonitoringRange?, timeout: Duration
    ) -> MonitoringStatus {
        func seconds(_ from: WireTime?, _ to: WireTime?) -> Double? {
            guard let from, let to else { return nil }
            return to.milliseconds(since: from) / 1000
        }
        let elapsed = seconds(start, registeredAt)
        var performance: [MonitoringStatus.Datum] = []
        if let elapsed {
            performance.append(
                .init("time", elapsed, unit: "s", warning: warning, critical: critical, minimum: 0,
                      maximum: Double(timeout.microseconds) / 1_000_000))
        }
        if let connect = seconds(start, flowUpAt) { performance.append(.init("connect", connect, unit: "s", minimum: 0)) }
        if let register = seconds(wire.current.firstRequest, registeredAt) {
            performance.append(.init("register", register, unit: "s", minimum: 0))
        }
        guard exit == .success, let elapsed else {
            // The status text is for people: the failure in words, with its fix said once.
            let why = FailureWords.explain(message ?? failure?.description ?? "failed", setup: setup)
            return MonitoringStatus(
                service: "SIP", state: .failure(exit: exit), text: why, performance: performance)
        }
        let state = MonitoringStatus.state(of: elapsed, warning: warning, critical: critical)
        var text = "\(setup.aor) registered over \(setup.transport.rawValue) in \(MonitoringStatus.Datum.number((elapsed * 1000).rounded() / 1000)) s"
            + ", expires \(result?.grantedExpires ?? 0) s"
        switch state {
        case .critical: text += " (critical range \(critical?.text ?? ""))"
        case .warning: text += " (warning range \(warning?.text ?? ""))"
        default: break
        }
        return MonitoringStatus(service: "SIP", state: state, text: text, performance: performance)
    }
}

extension Duration {
    var milliseconds: Int { Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000) }
    var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
}
