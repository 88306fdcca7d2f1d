import AstraTestSupport
import Foundation
import PushKitEmu
import PushKitLive
import SIPCore

/// The calls of ``KamailioPeer/GatewayFailoverRunTests``: `lines` sleeping phones (users 1010…,
/// each a ``LivePhone`` with the reference policy whose app is killed, its token registered
/// through one gateway or the other) and one caller (1001, UDP). Calls are dialled one after
/// another, each to the next line whose previous call is over; a line is killed again (app and
/// SIP flow gone, no unregister) before each of its calls, so every call is a whole wake.
final class FailoverRun: Sendable {
    struct Phone: Sendable {
        let user: String
        let phone: LivePhone<ReferencePolicy>
        let config: LivePhoneConfig
    }

    /// What a run measured (one JSON line: docs/bench/wakegw-failover.md).
    struct Figures: Sendable {
        var calls = 0, finals = 0, connected = 0
        /// Ended before the kill / dialled before it and still up at it / dialled after it.
        var beforeKill = 0, beforeKillConnected = 0, inFlight = 0, inFlightConnected = 0
        var afterKill = 0, afterKillConnected = 0
        /// Post-kill calls held by the killed process (must be 0), the survivor, the restart.
        var afterKillByDead = 0, afterKillBySurvivor = 0, afterKillByRestarted = 0
        /// Dial → held, ms: the first post-kill call, the worst post-kill call.
        var firstHeldAfterKillMs: Int64 = -1, maxHeldAfterKillMs: Int64 = -1
        /// Dial → final response of the calls in flight at the kill, worst, ms.
        var maxInFlightFinalMs: Int64 = -1
        var failovers = 0
        var lostRegistrations = 0
        var heldAtEnd = 0
        var wallMs: Int64 = 0
        /// When gw_a was killed (ms into the run; -1: never).
        var killedAtMs: Int64 = -1
        /// How each call in flight at the kill ended, and after how long.
        var inFlightEnds: [String] = []
        /// How the calls that did not connect ended, with counts.
        var failures: [String: Int] = [:]
        /// The gateways' own failovers (480 to the caller) by reason.
        var gatewayFailovers: [String: Int] = [:]

        var line: String {
            var json = JSONLine(event: "failover_run", t: wallMs)
            for (key, value): (String, Int64) in [
                ("calls", Int64(calls)), ("final_responses", Int64(finals)), ("connected", Int64(connected)),
                ("before_kill", Int64(beforeKill)), ("before_kill_connected", Int64(beforeKillConnected)),
                ("in_flight_at_kill", Int64(inFlight)), ("in_flight_connected", Int64(inFlightConnected)),
                ("in_flight_max_final_ms", maxInFlightFinalMs), ("after_kill", Int64(afterKill)),
                ("after_kill_connected", Int64(afterKillConnected)), ("after_kill_by_killed", Int64(afterKillByDead)),
                ("after_kill_by_survivor", Int64(afterKillBySurvivor)),
                ("after_kill_by_restarted", Int64(afterKillByRestarted)),
                ("first_invite_after_kill_held_ms", firstHeldAfterKillMs),
                ("max_invite_after_kill_held_ms", maxHeldAfterKillMs), ("kamailio_failovers", Int64(failovers)),
                ("lost_registrations", Int64(lostRegistrations)), ("held_at_end", Int64(heldAtEnd)),
                ("killed_at_ms", killedAtMs), ("wall_ms", wallMs),
            ] {
                json.add(key, value)
            }
            json.add("in_flight_ends", inFlightEnds)
            json.add("not_connected", failures.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" })
            json.add("gateway_failovers", gatewayFailovers.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" })
            return json.string
        }
    }

    let rig: GatewayFailoverRig
    let phones: [Phone]
    let caller: LiveCaller
    let timeline: LiveTimeline
    /// Call-ID → call index, shared by the caller and every phone.
    let directory: CallDirectory
    let watcher = HeldCallWatcher()

    private init(
        rig: GatewayFailoverRig, phones: [Phone], caller: LiveCaller, timeline: LiveTimeline, directory: CallDirectory
    ) {
        self.rig = rig
        self.phones = phones
        self.caller = caller
        self.timeline = timeline
        self.directory = directory
    }

    /// The environment every phone and the caller share: Kamailio's ports and CA, gw_a's API with
    /// gw_b's as the fallback (``GatewayClient/fallbackPorts``), the shared push service.
    static func environment(_ rig: GatewayFailoverRig, user: String) -> LiveEnvironment {
        var env = LiveEnvironment()
        env.sipPort = rig.server.sipPort
        env.wssPort = rig.server.wssPort
        env.caFile = rig.server.caFile
        env.httpPort = rig.httpPorts[0]
        env.apnsDevicePort = rig.push.devicePort
        env.ackWindowMs = 2_000
        env.qualifyTimeoutMs = 500
        env.gatewayAuth = rig.auth
        env.phoneUser = user
        return env
    }

    static func start(_ rig: GatewayFailoverRig, lines: Int) async throws -> FailoverRun {
        let timeline = LiveTimeline()
        let directory = CallDirectory()
        var phones: [Phone] = []
        var random = SystemRandomNumberGenerator()
        for n in 0..<lines {
            let user = String(1010 + n)
            let env = environment(rig, user: user)
            var gateway = GatewayClient(port: rig.httpPorts[0], bearer: rig.auth.bearer(for: user))
            gateway.fallbackPorts = [rig.httpPorts[1]]
            var config = LivePhoneConfig(
                line: env.phoneLine, gateway: gateway, apnsDevicePort: env.apnsDevicePort,
                token: PushToken(using: &random))
            config.settings = LiveRunner.liveSettings(env)
            // The app uploaded its token on an earlier run, through one gateway or the other:
            // both read it from the one database.
            let through = GatewayClient(port: rig.httpPorts[n % 2], bearer: rig.auth.bearer(for: user))
            let response = try await through.registerToken(
                endpoint: user, token: config.wireToken, environment: config.environment.rawValue,
                bundleID: config.bundleID, platform: config.platform)
            guard response.status == 200 else { throw LiveError(.infrastructure, "token of \(user): HTTP \(response.status)") }
            let phone = LivePhone(
                config: config, policy: PolicyChoice.correct.policy(config.settings), timeline: timeline,
                directory: directory)
            try await phone.setUp(app: .killed, locked: false, online: true)
            phones.append(Phone(user: user, phone: phone, config: config))
        }
        let caller = try LiveCaller(
            line: environment(rig, user: "1050").callerLine, timeline: timeline, directory: directory)
        try await caller.start()
        return FailoverRun(rig: rig, phones: phones, caller: caller, timeline: timeline, directory: directory)
    }

    /// Dials `calls` calls; after the `calls / 2`-th is dialled gw_a is SIGKILLed, and restarted
    /// `restartAfter` later. Waits (bounded) for every call to end, then measures.
    func run(calls: Int, restartAfter: Duration) async -> Figures {
        watcher.start(rig, timeline: timeline)
        let started = timeline.now
        var killedAt: Int64 = -1
        var restart: Task<Void, Never>?
        for k in 0..<calls {
            let line = phones[k % phones.count]
            if k >= phones.count {
                let previous = Int32(k - phones.count)
                let over = await eventually(timeout: .seconds(60), every: .milliseconds(20)) {
                    let ended = await self.caller.placed[previous]?.endReason != nil
                    return ended ? await line.phone.isIdle : false
                }
                if !over { break }  // counted below: a call without a final response
            }
            await line.phone.kill()
            await line.phone.plan(call: Int32(k), answerAfterMs: 100, declineAfterMs: nil, everyRing: true)
            guard let target = try? SIPURI(parsing: "sip:\(line.user)@127.0.0.1"),
                let c = try? await caller.dial(target, talkMs: 300)
            else { break }
            // The kill: from the midpoint on, as soon as gw_a holds the call just dialled (its
            // phone being woken), so that a caller is left with the dead gateway.
            if killedAt < 0, k >= calls / 2 - 1, await heldByFirst(c) {
                await rig.kill(0)
                killedAt = timeline.now
                let rig = rig
                restart = Task {
                    try? await Task.sleep(for: restartAfter)
                    _ = try? await rig.restart(0)
                }
            }
        }
        _ = await eventually(timeout: .seconds(60), every: .milliseconds(20)) { await self.caller.allEnded }
        await restart?.value
        watcher.stop()
        return await measure(calls: calls, started: started, killedAt: killedAt)
    }

    /// Whether call `c` is held by the first gw_a process (waits until a gateway holds it).
    func heldByFirst(_ c: Int32) async -> Bool {
        let holder = await eventuallySome(timeout: .seconds(5), every: .milliseconds(2)) { () -> Int? in
            self.watcher.all.first { self.directory.known($0.key) == c }?.value.first?.process
        }
        return holder == 0
    }

    func measure(calls: Int, started: Int64, killedAt: Int64) async -> Figures {
        var figures = Figures()
        figures.calls = calls
        figures.killedAtMs = killedAt < 0 ? -1 : killedAt - started
        let placed = await caller.placed
        var holdsOf: [Int32: [HeldCallWatcher.Held]] = [:]
        for (callID, holds) in watcher.all {
            if let c = directory.known(callID) { holdsOf[c] = holds }
        }
        let slots = rig.started.withLock { $0.map(\.slot) }
        for c in 0..<Int32(calls) {
            guard let p = placed[c] else { continue }
            let ended = p.endReason != nil
            if ended { figures.finals += 1 }
            let connected = p.outcome == .connected
            if connected { figures.connected += 1 } else { figures.failures[p.endReason.map { "\($0)" } ?? "none", default: 0] += 1 }
            let holds = holdsOf[c] ?? []
            if p.startedAt >= killedAt {
                figures.afterKill += 1
                if connected { figures.afterKillConnected += 1 }
                if holds.contains(where: { $0.process == 0 }) { figures.afterKillByDead += 1 }
                if let first = holds.first {
                    if first.process == 1 { figures.afterKillBySurvivor += 1 }
                    if slots[first.process] == 0 && first.process != 0 { figures.afterKillByRestarted += 1 }
                    let ms = first.t - p.startedAt
                    if figures.firstHeldAfterKillMs < 0 { figures.firstHeldAfterKillMs = ms }
                    figures.maxHeldAfterKillMs = max(figures.maxHeldAfterKillMs, ms)
                }
            } else if ended && p.endedAt < killedAt {
                figures.beforeKill += 1
                if connected { figures.beforeKillConnected += 1 }
            } else {
                figures.inFlight += 1
                if connected { figures.inFlightConnected += 1 }
                if ended { figures.maxInFlightFinalMs = max(figures.maxInFlightFinalMs, p.endedAt - p.startedAt) }
                let by = holds.map { rig.started.withLock { $0 }[$0.process].gateway.sip.description }
                figures.inFlightEnds.append(
                    "\(p.endReason.map { "\($0)" } ?? "none") after \(p.endedAt - p.startedAt) ms, held by \(by)")
            }
        }
        figures.wallMs = timeline.now - started
        for (_, gateway) in rig.started.withLock({ $0 }) {
            for line in gateway.process.events("failover") {
                figures.gatewayFailovers[CallToolHarness.field("reason", in: line) ?? "?", default: 0] += 1
            }
        }
        figures.failovers = rig.kamailioLog.components(separatedBy: "wake gateway failover").count - 1
        for phone in phones {
            for port in rig.httpPorts {
                let client = GatewayClient(port: port, bearer: rig.auth.bearer(for: phone.user))
                let status = try? await client.status(endpoint: phone.user, token: phone.config.wireToken)
                if status?.json?["registered"]?.boolValue != true { figures.lostRegistrations += 1 }
            }
        }
        // Nothing left held: each live gateway's held-calls gauge back at 0 (bounded wait).
        for port in rig.httpPorts {
            var held = -1
            _ = await eventually(timeout: .seconds(20)) {
                held = await Self.heldCalls(port: port)
                return held == 0
            }
            figures.heldAtEnd += max(held, 0) + (held < 0 ? 1 : 0)
        }
        return figures
    }

    /// `wakegw_held_calls` from the gateway's `/metrics` (-1 when it does not answer).
    static func heldCalls(port: UInt16) async -> Int {
        guard let response = try? await GatewayClient(port: port).request("GET", "/metrics") else { return -1 }
        let text = String(decoding: response.body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("wakegw_held_calls ") }
        return line.flatMap { Int(Double($0.split(separator: " ").last ?? "") ?? -1) } ?? -1
    }

    func shutdown() async {
        await caller.shutdown()
        for phone in phones { await phone.phone.shutdown() }
    }
}
