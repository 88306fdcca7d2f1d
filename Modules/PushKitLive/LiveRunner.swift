import PushKitEmu
import SIPCore

/// Runs one live scenario end to end against running peers (``LiveEnvironment``): sets the
/// phone up, plays the steps on the wall clock, lets calls finish, and judges.
public enum LiveRunner {
    /// Runs `scenario` with `policy`. Never throws: an infrastructure failure is in the report.
    public static func run(
        _ scenario: LiveScenario, policy choice: PolicyChoice, environment env: LiveEnvironment,
        token: PushToken = PushToken(0x1111, 0x2222, 0x3333, UInt64.random(in: 1...UInt64.max))
    ) async -> LiveReport {
        await run(scenario, policyName: choice.rawValue, environment: env, token: token) { choice.policy($0) }
    }

    /// Runs `scenario` with the reference policy carrying exactly `faults` (one field bug at a
    /// time: which rule does it break for real?).
    public static func run(
        _ scenario: LiveScenario, faults: ReferencePolicy.Faults, environment env: LiveEnvironment,
        token: PushToken = PushToken(0x1111, 0x2222, 0x3333, UInt64.random(in: 1...UInt64.max))
    ) async -> LiveReport {
        await run(scenario, policyName: "faulty", environment: env, token: token) {
            ReferencePolicy(faults: faults, settings: $0)
        }
    }

    /// Runs `scenario` with the app's code in a client process (``ClientSession`` in
    /// `perLaunch` mode): iOS starts a new process at each launch and kills it when the app dies,
    /// so a killed app has no process at all. The session's name is the policy's.
    /// `timeline` lets a caller watch the run as it happens (a test that inspects processes).
    public static func run(
        _ scenario: LiveScenario, session: ClientSession, environment env: LiveEnvironment,
        token: PushToken = PushToken(0x1111, 0x2222, 0x3333, UInt64.random(in: 1...UInt64.max)),
        timeline: LiveTimeline = LiveTimeline()
    ) async -> LiveReport {
        session.begin(scenario: scenario.name, settings: liveSettings(env))
        return await run(scenario, policyName: session.name, environment: env, token: token, timeline: timeline) { _ in
            ProcessClientPolicy(session: session)
        }
    }

    /// The rule settings of a live run: the gateway's timing, the live WAKE bound.
    public static func liveSettings(_ env: LiveEnvironment) -> EmulatorSettings {
        var settings = EmulatorSettings()
        settings.ackWindowMs = env.ackWindowMs
        settings.qualifyTimeoutMs = env.qualifyTimeoutMs
        // The WAKE bound in live mode: ack window + 100 ms. A binding that looks live costs one
        // qualify round trip, not the qualify timeout: Kamailio answers a dead contact's OPTIONS
        // with a final non-2xx at once and the gateway pushes then.
        settings.failoverBoundMs = env.ackWindowMs + 100
        settings.staleAfterMs = env.ackWindowMs
        return settings
    }

    static func run<P: PushClientPolicy>(
        _ scenario: LiveScenario, policyName: String, environment env: LiveEnvironment, token: PushToken,
        timeline: LiveTimeline = LiveTimeline(), makePolicy: (EmulatorSettings) -> P
    ) async -> LiveReport {
        let settings = liveSettings(env)
        let directory = CallDirectory()
        var config = LivePhoneConfig(
            line: env.phoneLine,
            gateway: GatewayClient(host: env.host, port: env.httpPort, bearer: env.gatewayAuth?.bearer(for: env.phoneUser)),
            apnsDevicePort: env.apnsDevicePort, token: token)
        config.apnsHost = env.host
        config.rfc8599 = env.rfc8599
        config.platform = env.platform
        config.settings = settings
        let delivery = env.deliverySettings
        // A scenario that needs a slow launch (cancel-before-wake) keeps it under any model.
        config.launchFromKilled =
            scenario.launchFromKilledMs > 0 ? .fixed(scenario.launchFromKilledMs) : delivery.launchFromKilled
        config.launchFromSuspended = delivery.launchFromSuspended
        config.apnsDelay = delivery.apnsDelay
        config.apnsLossPercent = delivery.apnsLossPercent
        config.deliverySeed = env.deliverySeed
        config.registerDelayMs = scenario.registerDelayMs
        config.sipTrace = env.sipTrace
        var report = LiveReport(
            scenario: scenario.name, policy: policyName, timeline: [], violations: [], outcomes: [],
            expected: scenario.expect, pushToRingMs: [], failoverMs: [])
        if env.sealed {
            do throws(LiveError) {
                config.sealing = try LiveSealing.make(
                    endpoint: config.endpointName, gatewayID: env.gatewayID, fault: env.sealFault)
            } catch {
                report.infrastructureError = error.description
                return report
            }
        }
        let phone = LivePhone(config: config, policy: makePolicy(settings), timeline: timeline, directory: directory)
        let caller: LiveCaller
        do {
            caller = try LiveCaller(
                line: env.callerLine, timeline: timeline, directory: directory, sipTrace: env.sipTrace,
                answerTappedAt: { await phone.answerTappedAt(call: $0) })
            try await caller.start()
            try await setUp(phone, scenario, config: config)
        } catch {
            report.infrastructureError = error.description
            await phone.shutdown()
            report.timeline = timeline.events
            return report
        }
        let bound = settings.failoverBoundMs
        await caller.whenEnded { c, placed in
            guard placed.outcome == .failedOver else { return }
            let after = placed.endedAt - placed.startedAt
            let reason: FailoverReason
            if let named = placed.gatewayFailoverReason {
                reason = named  // the gateway's 480 says why (Reason: SIP;cause=480;text="wake no_ack")
            } else if case .declined = placed.endReason {
                reason = .declined
            } else {
                reason = await phone.acked(call: c) ? .noRegister : .noAck
            }
            timeline.record(
                .emu(.failover(call: c, reason: reason, afterMs: after, boundMs: bound)),
                at: placed.endedAt)
            await phone.failedOver(call: c, reason: reason, afterMs: after)
        }
        let base = timeline.now
        let target = "sip:\(env.phoneUser)@\(env.host)"
        var dialled: Int32 = 0
        do {
            for step in scenario.steps.sorted(by: { $0.at < $1.at }) {
                if await phone.clientFault != nil { break }
                let wait = base + step.at - timeline.now
                if wait > 0 { try? await Task.sleep(for: .milliseconds(wait)) }
                switch step.action {
                case .call(let answerAfter, let talk):
                    // The user's plan is known before the call exists: index = calls dialled so far.
                    await phone.plan(call: dialled, answerAfterMs: answerAfter, declineAfterMs: nil)
                    let uri = try SIPURI(parsing: target)
                    try await caller.dial(uri, talkMs: talk)
                    dialled += 1
                case .declinedCall(let after):
                    await phone.plan(call: dialled, answerAfterMs: nil, declineAfterMs: after)
                    try await caller.dial(try SIPURI(parsing: target), talkMs: 0)
                    dialled += 1
                case .rotateToken:
                    try await phone.rotateToken()
                case .hangup(let c):
                    await caller.hangUp(c)
                case .offline:
                    await phone.goOffline()
                case .online:
                    try await phone.goOnline()
                }
            }
        } catch {
            report.infrastructureError = "\(error)"
        }
        let horizon = base + scenario.horizonMs
        while timeline.now < horizon, !(await caller.allEnded), await phone.clientFault == nil {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if await phone.clientFault == nil {
            // Let the phone finish what it does after the last call ended (a late launch, an ack).
            let settle = base + (scenario.steps.map(\.at).max() ?? 0) + scenario.settleMs
            if timeline.now < settle { try? await Task.sleep(for: .milliseconds(settle - timeline.now)) }
            try? await Task.sleep(for: .milliseconds(200))
        }
        let placed = await caller.placed
        for c in placed.keys.sorted() {
            let p = placed[c]!
            report.outcomes.append(p.outcome)
            if p.ringingAt >= 0 { report.pushToRingMs.append(p.ringingAt - p.startedAt) }
            if p.outcome == .failedOver { report.failoverMs.append(p.endedAt - p.startedAt) }
        }
        if let first = placed.keys.sorted().first(where: { placed[$0]!.outcome == .connected }) {
            report.callerHeardSeconds = LiveReport.toneSeconds(placed[first]!.recording.samples, frequency: 1_000)
            if let sink = await phone.recordings[first] {
                report.phoneHeardSeconds = LiveReport.toneSeconds(sink.samples, frequency: 440)
            }
        }
        await caller.shutdown()
        await phone.shutdown()
        report.violations = await phone.violations
        report.clientFailure = await phone.clientFault
        report.timeline = timeline.events
        report.callerLeftToEndMs = callerLeftToEnd(report.timeline)
        report.measureColdStart()
        return report
    }

    /// Per call the caller hung up before the answer: its hang-up (`caller_left`) → the end of
    /// the phone's CallKit call for it (`callkit_end`), ms; calls the phone never showed or never
    /// ended are left out.
    static func callerLeftToEnd(_ timeline: [(t: Int64, event: LiveEvent)]) -> [Int64] {
        var callOf: [Int32: Int32] = [:]
        var left: [(call: Int32, t: Int64)] = []
        var ends: [(uuid: Int32, t: Int64)] = []
        for (t, event) in timeline {
            guard case .emu(let e) = event else { continue }
            switch e {
            case .callkitReport(let uuid, let call, _): callOf[uuid] = call
            case .callerLeft(let call): left.append((call, t))
            case .callkitEnd(let uuid, _): ends.append((uuid, t))
            default: break
            }
        }
        return left.compactMap { leaving in
            ends.first { $0.t >= leaving.t && callOf[$0.uuid] == leaving.call }.map { $0.t - leaving.t }
        }
    }

    /// The phone's starting state.
    static func setUp<P: PushClientPolicy>(_ phone: LivePhone<P>, _ scenario: LiveScenario, config: LivePhoneConfig)
        async throws(LiveError)
    {
        if scenario.staleBinding {
            try await phone.setUp(app: .foreground, locked: scenario.locked, online: true)
            await phone.kill()
            if !scenario.online { await phone.goOffline() }
            return
        }
        if scenario.app != .foreground && !config.rfc8599 {
            // The app uploaded its token on an earlier run (virtual mode's `token_on_server`).
            let response = try await config.gateway.registerToken(
                endpoint: config.endpointName, token: config.wireToken, environment: config.environment.rawValue,
                bundleID: config.bundleID, platform: config.platform, sealing: config.sealing)
            guard (200..<300).contains(response.status) else {
                throw LiveError(.infrastructure, "gateway refused the token registration: HTTP \(response.status)")
            }
        }
        if scenario.app == .killed && config.rfc8599 {
            // RFC 8599: the token reaches the server only inside a REGISTER: register once, then die.
            try await phone.setUp(app: .foreground, locked: scenario.locked, online: true)
            await phone.kill()
            if !scenario.online { await phone.goOffline() }
            return
        }
        try await phone.setUp(app: scenario.app, locked: scenario.locked, online: scenario.online)
    }
}
