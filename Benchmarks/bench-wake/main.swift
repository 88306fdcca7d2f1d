// bench-wake: push wake end to end on loopback, with the release astra-wakegw and astra-pushsim
// next to this binary and a Kamailio from scripts/kamailio.sh (own ports, KAMAILIO_WAKE_GATEWAY).
// The phone's app code is a real process (`astra-pushsim client --policy correct`) that the
// emulated iOS starts when the push arrives for the killed app (docs/decisions.md D24).
// Prints ONE JSON object on stdout, diagnostics on stderr. Two delivery models, same peers:
//   zero delay (the gateway's emulator delivers at once, no launch delay — the real process start,
//   SIP stack, TLS + WebSocket and digest REGISTER are all that is measured):
//     push_to_ring_gateway_ms (gateway receives INVITE → the phone's 180 at the gateway),
//     push_to_ring_caller_ms (caller's INVITE → its 180), spawn_to_report_ms / spawn_to_register_ms
//     (the app process's cold start), failover_caller_ms / failover_gateway_ms (dead phone whose
//     binding is still registered), failover_no_binding_caller_ms;
//   field (PushKitEmu's field model on the device: APNs delay log-normal median 622 / p95 2000 ms,
//     1 % loss, iOS cold launch log-normal median 700 / p95 1500 ms, drawn per run):
//     push_to_ring_caller_ms, the drawn apns_delay_ms and cold_launch_ms, overhead_ms =
//     push-to-ring − drawn APNs delay − drawn cold launch (what the real system adds: process
//     spawn, report, ack, REGISTER, release, 180), late_failovers (killed calls whose push or
//     launch missed the ack window: excused by delivery), failover_caller_ms for the dead phone.
// ≥ BENCH_WAKE_RUNS (default 20) runs each; killed runs under field delivery go on until that many
// rang (at most 3× as many runs). Targets under field delivery, at p95: push-to-ring ≤ APNs delay +
// cold start + 300 ms (overhead_ms ≤ 300), dead-phone failover ≤ ack window + 100 ms.
// Every push rides HTTP/2 to the gateway's APNs emulator (docs/decisions.md D34): `http2` gives the
// provider exchange per push (push_sent's provider_ms: request queued → Apple's answer read, the
// part the HTTP/2 path adds over the former in-process hand-off; target ≤ 5 ms at p50), how many
// pushes opened a connection, and the TLS handshakes counted by the client (provider_connections)
// and by the emulator's listener — one connection for the whole run.
import Glibc
import PushKitEmu
import PushKitLive

func environment(_ key: String) -> String? { getenv(key).map { String(cString: $0) } }
func log(_ text: String) {
    let bytes = Array("bench-wake: \(text)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
func percentile(_ values: [Int64], _ p: Double) -> Int64 {
    guard !values.isEmpty else { return -1 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}
/// `{"median":…,"p95":…,"min":…,"max":…,"n":…` + extra fields + `}`.
func stats(_ values: [Int64], _ extra: String = "") -> String {
    "{\"median\": \(percentile(values, 0.5)), \"p95\": \(percentile(values, 0.95)), \"min\": \(values.min() ?? -1), "
        + "\"max\": \(values.max() ?? -1), \"n\": \(values.count)\(extra.isEmpty ? "" : ", " + extra)}"
}

let runs = Int(environment("BENCH_WAKE_RUNS") ?? "") ?? 20
var settings = LiveInfrastructure.GatewaySettings()
settings.ackWindowMs = Int64(environment("BENCH_WAKE_ACK_WINDOW_MS") ?? "") ?? 2_000
settings.apnsDelayMs = Int64(environment("BENCH_WAKE_APNS_DELAY_MS") ?? "") ?? 0
// A stats event every second: the last one before the stop has the connection counters.
settings.extraArguments = ["--stats-interval-s", "1"]
let binary = CommandLine.arguments[0]
let bin = {
    let d = String(binary[..<(binary.lastIndex(of: "/") ?? binary.startIndex)]); return d.isEmpty ? "." : d
}()
let infrastructure: LiveInfrastructure
let app: ClientSession
do {
    infrastructure = try await LiveInfrastructure.start(
        wakegw: bin + "/astra-wakegw", kamailioScript: "scripts/kamailio.sh", settings: settings)
    app = try ClientSession(command: "'\(bin)/astra-pushsim' client --policy correct", lifetime: .perLaunch)
} catch let error as LiveError {
    log("\(error)")
    exit(3)
} catch {
    log("astra-pushsim client: \(error)")
    exit(3)
}

// The user answers 50 ms after the ring: with an answer in the same millisecond the phone's 180
// and 200 leave back to back, and Kamailio's UDP workers may relay them to the caller in either
// order (a 180 after the 200 is dropped, RFC 3261 §13.2.2.4), so the caller-side figure lost
// a sample in 2 of 20 runs. The push-to-ring figures end at the 180 and do not include the 50 ms.
var killed = LiveScenario(
    name: "killed", summary: "bench: one call to a killed phone, answered 50 ms after the ring",
    app: .killed, steps: [.init(at: 50, .call(answerAfterMs: 50, talkMs: 100))], expect: [.connected])
killed.settleMs = 100
var dead = LiveScenario(
    name: "dead-phone", summary: "bench: one call to a dead phone whose binding is still registered",
    app: .killed, steps: [.init(at: 50, .call(answerAfterMs: 0, talkMs: 100))], expect: [.failedOver])
dead.online = false
dead.staleBinding = true
dead.settleMs = 100
// The same dead phone without a registrar binding (expired or never registered): no qualify step.
var unbound = dead
unbound.name = "offline"
unbound.staleBinding = false
unbound.app = .suspended

/// One delivery model's figures.
struct Figures {
    var pushToRing: [Int64] = []
    var spawnToReport: [Int64] = []
    var spawnToRegister: [Int64] = []
    var apnsDelay: [Int64] = []
    var coldLaunch: [Int64] = []
    var overhead: [Int64] = []
    var lateFailovers = 0
    var killedRuns = 0
    var failover: [Int64] = []
    var failoverUnbound: [Int64] = []
    var failures: [String] = []
}

/// Killed-phone runs (until `runs` rang, at most `maxRuns`), then dead-phone runs.
func measure(_ delivery: DeliveryModel, maxRuns: Int, unboundToo: Bool) async -> Figures {
    var f = Figures()
    var i = 0
    while f.pushToRing.count < runs && i < maxRuns {
        var env = infrastructure.environment
        env.phoneUser = String(1060 + i % 20)
        env.delivery = delivery
        env.deliverySeed = UInt64(1_000 + i)
        let report = await LiveRunner.run(killed, session: app, environment: env)
        f.killedRuns += 1
        i += 1
        if report.passed, let ms = report.pushToRingMs.first {
            f.pushToRing.append(ms)
            f.spawnToReport += report.spawnToReportMs
            f.spawnToRegister += report.spawnToRegisterMs
            let apns = report.apnsDelayMs.first ?? 0, launch = report.launchDelayMs.first ?? 0
            f.apnsDelay.append(apns)
            f.coldLaunch.append(launch)
            f.overhead.append(ms - apns - launch)
        } else if delivery == .field && report.violations.isEmpty && report.outcomes == [.failedOver] {
            f.lateFailovers += 1  // the drawn delay + launch missed the ack window: delivery's fault
        } else {
            f.failures.append("killed@\(delivery.rawValue)#\(i): \(report.summary)")
        }
    }
    for i in 0..<runs {
        var env = infrastructure.environment
        env.phoneUser = String(1080 + i % 20)
        env.delivery = delivery
        env.deliverySeed = UInt64(2_000 + i)
        let report = await LiveRunner.run(dead, session: app, environment: env)
        if report.passed, let ms = report.failoverMs.first {
            f.failover.append(ms)
        } else {
            f.failures.append("dead-phone@\(delivery.rawValue)#\(i): \(report.summary)")
        }
        guard unboundToo else { continue }
        env.phoneUser = String(1040 + i % 20)
        let unboundReport = await LiveRunner.run(unbound, session: app, environment: env)
        if unboundReport.passed, let ms = unboundReport.failoverMs.first {
            f.failoverUnbound.append(ms)
        } else {
            f.failures.append("offline@\(delivery.rawValue)#\(i): \(unboundReport.summary)")
        }
    }
    return f
}

// Gateway-side figures from astra-wakegw's JSON events (one `ringing` per killed run, one
// `failover` per dead or unbound run).
func gatewayFigures(
    _ log: Substring, event: String, key: String = "since_invite_ms", where filter: (Substring) -> Bool = { _ in true }
) -> [Int64] {
    var values: [Int64] = []
    for line in log.split(separator: "\n") where line.contains("\"event\":\"\(event)\"") && filter(line) {
        guard let range = line.firstRange(of: "\"\(key)\":") else { continue }
        let digits = line[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber || $0 == "-" }
        if let value = Int64(digits) { values.append(value) }
    }
    return values
}

let zero = await measure(.ideal, maxRuns: runs, unboundToo: true)
let zeroLog = infrastructure.gatewayLog
let field = await measure(.field, maxRuns: 3 * runs, unboundToo: false)
let fullLog = infrastructure.gatewayLog
let fieldLog = fullLog.dropFirst(zeroLog.count)
let zeroSlice = Substring(zeroLog)
let pushToRingGateway = gatewayFigures(zeroSlice, event: "ringing")
// Dead-phone runs are the failovers for users 1080–1099 (the unbound runs use 1040–1059).
let heldUsers = Dictionary(
    fullLog.split(separator: "\n").filter { $0.contains("\"event\":\"call_held\"") }.compactMap {
        line -> (String, String)? in
        guard let id = line.firstRange(of: "\"call_id\":\""), let user = line.firstRange(of: "\"user\":\"") else {
            return nil
        }
        return (
            String(line[id.upperBound...].prefix { $0 != "\"" }), String(line[user.upperBound...].prefix { $0 != "\"" })
        )
    }, uniquingKeysWith: { a, _ in a })
func deadPhoneFailover(_ line: Substring) -> Bool {
    guard let id = line.firstRange(of: "\"call_id\":\"") else { return false }
    let user = heldUsers[String(line[id.upperBound...].prefix { $0 != "\"" })] ?? ""
    return user >= "1080" && user <= "1099"
}
let failoverGateway = gatewayFigures(zeroSlice, event: "failover", where: deadPhoneFailover)
// Where a failover's time goes at the gateway, dead and unbound runs alike: the ack window from
// the push decision to the 480 (the timer), and what came before the push (the qualify).
let failoverSincePush = gatewayFigures(zeroSlice, event: "failover", key: "since_push_ms")
let failoverBeforePush = zip(gatewayFigures(zeroSlice, event: "failover"), failoverSincePush).map { $0 - $1 }
let fieldFailoverGateway = gatewayFigures(fieldLog, event: "failover", where: deadPhoneFailover)
// The HTTP/2 leg: every push of both phases; the counters from the last stats event.
usleep(1_500_000)
let finalLog = Substring(infrastructure.gatewayLog)
let providerMs = gatewayFigures(finalLog, event: "push_sent", key: "provider_ms")
let newConnections = finalLog.split(separator: "\n").filter {
    $0.contains("\"event\":\"push_sent\"") && $0.contains("\"new_connection\":true")
}.count
let providerConnections = gatewayFigures(finalLog, event: "stats", key: "provider_connections").last ?? -1
let emulatorHandshakes = gatewayFigures(finalLog, event: "stats", key: "emulator_apns_sandbox_tls_handshakes").last ?? -1
app.close()
infrastructure.stop()
let failures = zero.failures + field.failures
for failure in failures { log(failure) }

let ringTarget = 300 + settings.apnsDelayMs
let failoverTarget = settings.ackWindowMs + 100
let overheadTarget: Int64 = 300
let zeroOK =
    pushToRingGateway.count == zero.pushToRing.count && percentile(pushToRingGateway, 0.95) <= ringTarget
    && percentile(zero.failover, 0.95) <= failoverTarget
let fieldOK =
    field.pushToRing.count >= runs && percentile(field.overhead, 0.95) <= overheadTarget
    && field.failover.count == runs && percentile(field.failover, 0.95) <= failoverTarget
let http2OK = percentile(providerMs, 0.5) <= 5 && providerConnections == 1 && emulatorHandshakes == 1
let ok = failures.isEmpty && zeroOK && fieldOK && http2OK
var load = [Double](repeating: 0, count: 3)
_ = getloadavg(&load, 3)
print(
    """
    {"bench": "wake", "peer": "kamailio + astra-wakegw loopback (caller UDP, phone WSS), app = astra-pushsim client process", \
    "runs": \(runs), "ack_window_ms": \(settings.ackWindowMs), "gateway_apns_delay_ms": \(settings.apnsDelayMs), \
    "load_average_1m": \(Double(Int(load[0] * 100)) / 100), \
    "zero_delay": {"push_to_ring_gateway_ms": \(stats(pushToRingGateway, "\"target\": \(ringTarget), \"from\": \"gateway receives INVITE\", \"to\": \"phone's 180 at the gateway\"")), \
    "push_to_ring_caller_ms": \(stats(zero.pushToRing, "\"from\": \"caller sends INVITE\", \"to\": \"180 at the caller\"")), \
    "spawn_to_report_ms": \(stats(zero.spawnToReport)), "spawn_to_register_ms": \(stats(zero.spawnToRegister)), \
    "failover_caller_ms": \(stats(zero.failover, "\"target\": \(failoverTarget), \"note\": \"binding still registered: the gateway qualifies first; Kamailio's non-2xx ends the qualify at once\"")), \
    "failover_gateway_ms": \(stats(failoverGateway)), \
    "failover_gateway_since_push_ms": \(stats(failoverSincePush)), \
    "failover_gateway_before_push_ms": \(stats(failoverBeforePush)), \
    "failover_no_binding_caller_ms": \(stats(zero.failoverUnbound, "\"target\": \(failoverTarget)")), "ok": \(zeroOK)}, \
    "field": {"apns_delay": "\(EmulatorSettings.fieldAPNsDelay.spec)", "cold_launch": "\(EmulatorSettings.fieldColdLaunch.spec)", \
    "killed_runs": \(field.killedRuns), "late_failovers": \(field.lateFailovers), \
    "push_to_ring_caller_ms": \(stats(field.pushToRing)), "apns_delay_ms": \(stats(field.apnsDelay)), \
    "cold_launch_ms": \(stats(field.coldLaunch)), \
    "overhead_ms": \(stats(field.overhead, "\"target\": \(overheadTarget), \"is\": \"push-to-ring - drawn APNs delay - drawn cold launch\"")), \
    "spawn_to_report_ms": \(stats(field.spawnToReport)), "spawn_to_register_ms": \(stats(field.spawnToRegister)), \
    "failover_caller_ms": \(stats(field.failover, "\"target\": \(failoverTarget)")), \
    "failover_gateway_ms": \(stats(fieldFailoverGateway)), "ok": \(fieldOK)}, \
    "http2": {"provider_ms": \(stats(providerMs, "\"target_p50\": 5, \"from\": \"push request queued\", \"to\": \"provider answer read\"")), \
    "pushes": \(providerMs.count), "pushes_opening_a_connection": \(newConnections), \
    "provider_connections": \(providerConnections), "emulator_tls_handshakes": \(emulatorHandshakes), \
    "before": "push_to_ring_gateway_ms median 25 / p95 40 over the in-process hand-off (D24, load 7.5-9)", "ok": \(http2OK)}, \
    "failures": \(failures.count), "ok": \(ok)}
    """)
exit(ok ? 0 : 1)
