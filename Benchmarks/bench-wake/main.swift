// bench-wake: push wake end to end on loopback (issue 10), with the release astra-wakegw next to
// this binary and a Kamailio from scripts/kamailio.sh (own ports, KAMAILIO_WAKE_GATEWAY set).
// Prints ONE JSON object on stdout:
//   push_to_ring_gateway_ms: killed phone (no process, unregistered, token on the gateway): the
//     gateway receives the INVITE → the phone's 180 reaches the gateway (issue 10's definition;
//     astra-wakegw's `ringing` event, `since_invite_ms`): it holds, pushes through its APNs
//     emulator, the live phone launches, reports, acks, REGISTERs over WSS, the held INVITE is
//     released, the phone rings;
//   push_to_ring_caller_ms: the same calls seen by the caller: its INVITE → its 180 (two loopback
//     hops through Kamailio more);
//   failover_caller_ms: dead phone (offline, killed, binding left in the registrar): the caller's
//     INVITE → the 480 (failover_gateway_ms: the gateway's `failover` event, INVITE received →
//     480 sent);
//   median and p95 over N runs each (BENCH_WAKE_RUNS, default 20), each run checked by the rule
//   checker (correct policy). Targets: push-to-ring (gateway) ≤ 300 ms + APNs delay; failover
//   (caller) ≤ ack window + 100 ms. Diagnostics go to stderr.
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

let runs = Int(environment("BENCH_WAKE_RUNS") ?? "") ?? 20
var settings = LiveInfrastructure.GatewaySettings()
settings.ackWindowMs = Int64(environment("BENCH_WAKE_ACK_WINDOW_MS") ?? "") ?? 2_000
settings.apnsDelayMs = Int64(environment("BENCH_WAKE_APNS_DELAY_MS") ?? "") ?? 0
let binary = CommandLine.arguments[0]
let bin = String(binary[..<(binary.lastIndex(of: "/") ?? binary.startIndex)])
let infrastructure: LiveInfrastructure
do {
    infrastructure = try await LiveInfrastructure.start(
        wakegw: (bin.isEmpty ? "." : bin) + "/astra-wakegw", kamailioScript: "scripts/kamailio.sh", settings: settings)
} catch {
    log("\(error)")
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

var pushToRing: [Int64] = []
var failover: [Int64] = []
var failoverUnbound: [Int64] = []
var failures: [String] = []
for i in 0..<runs {
    var env = infrastructure.environment
    env.phoneUser = String(1060 + i % 20)
    let report = await LiveRunner.run(killed, policy: .correct, environment: env)
    if report.passed, let ms = report.pushToRingMs.first {
        pushToRing.append(ms)
    } else {
        failures.append("killed#\(i): \(report.summary)")
    }
    env.phoneUser = String(1080 + i % 20)
    let deadReport = await LiveRunner.run(dead, policy: .correct, environment: env)
    if deadReport.passed, let ms = deadReport.failoverMs.first {
        failover.append(ms)
    } else {
        failures.append("dead-phone#\(i): \(deadReport.summary)")
    }
    env.phoneUser = String(1040 + i % 20)
    let unboundReport = await LiveRunner.run(unbound, policy: .correct, environment: env)
    if unboundReport.passed, let ms = unboundReport.failoverMs.first {
        failoverUnbound.append(ms)
    } else {
        failures.append("offline#\(i): \(unboundReport.summary)")
    }
}
// Gateway-side figures from astra-wakegw's JSON events (one `ringing` per killed run, one
// `failover` per dead or unbound run), read before the run directory goes.
func gatewayFigures(_ log: String, event: String, where filter: (Substring) -> Bool = { _ in true }) -> [Int64] {
    var values: [Int64] = []
    for line in log.split(separator: "\n") where line.contains("\"event\":\"\(event)\"") && filter(line) {
        guard let range = line.firstRange(of: "\"since_invite_ms\":") else { continue }
        let digits = line[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber || $0 == "-" }
        if let value = Int64(digits) { values.append(value) }
    }
    return values
}
let gatewayLog = infrastructure.gatewayLog
let pushToRingGateway = gatewayFigures(gatewayLog, event: "ringing")
// Dead-phone runs are the failovers for users 1080–1099 (the unbound runs use 1040–1059).
let heldUsers = Dictionary(
    gatewayLog.split(separator: "\n").filter { $0.contains("\"event\":\"call_held\"") }.compactMap {
        line -> (String, String)? in
        guard let id = line.firstRange(of: "\"call_id\":\""), let user = line.firstRange(of: "\"user\":\"") else { return nil }
        return (
            String(line[id.upperBound...].prefix { $0 != "\"" }), String(line[user.upperBound...].prefix { $0 != "\"" })
        )
    }, uniquingKeysWith: { a, _ in a })
let failoverGateway = gatewayFigures(gatewayLog, event: "failover") { line in
    guard let id = line.firstRange(of: "\"call_id\":\"") else { return false }
    let user = heldUsers[String(line[id.upperBound...].prefix { $0 != "\"" })] ?? ""
    return user >= "1080" && user <= "1099"
}
infrastructure.stop()
for failure in failures { log(failure) }

let ringTarget = 300 + settings.apnsDelayMs
let failoverTarget = settings.ackWindowMs + 100
let ok =
    failures.isEmpty && pushToRingGateway.count == pushToRing.count
    && percentile(pushToRingGateway, 0.95) <= ringTarget && percentile(failover, 0.95) <= failoverTarget
print(
    """
    {"bench": "wake", "peer": "kamailio + astra-wakegw loopback (caller UDP, phone WSS)", "runs": \(runs), \
    "apns_delay_ms": \(settings.apnsDelayMs), "ack_window_ms": \(settings.ackWindowMs), \
    "push_to_ring_gateway_ms": {"median": \(percentile(pushToRingGateway, 0.5)), \
    "p95": \(percentile(pushToRingGateway, 0.95)), "min": \(pushToRingGateway.min() ?? -1), \
    "max": \(pushToRingGateway.max() ?? -1), "n": \(pushToRingGateway.count), "target": \(ringTarget), \
    "from": "gateway receives INVITE", "to": "phone's 180 at the gateway"}, \
    "push_to_ring_caller_ms": {"median": \(percentile(pushToRing, 0.5)), "p95": \(percentile(pushToRing, 0.95)), \
    "min": \(pushToRing.min() ?? -1), "max": \(pushToRing.max() ?? -1), "n": \(pushToRing.count), \
    "from": "caller sends INVITE", "to": "180 at the caller"}, \
    "failover_caller_ms": {"median": \(percentile(failover, 0.5)), "p95": \(percentile(failover, 0.95)), \
    "min": \(failover.min() ?? -1), "max": \(failover.max() ?? -1), "n": \(failover.count), \
    "target": \(failoverTarget), \
    "note": "binding still registered: the gateway qualifies first; Kamailio's non-2xx ends the qualify at once"}, \
    "failover_gateway_ms": {"median": \(percentile(failoverGateway, 0.5)), \
    "p95": \(percentile(failoverGateway, 0.95)), "n": \(failoverGateway.count)}, \
    "failover_no_binding_caller_ms": {"median": \(percentile(failoverUnbound, 0.5)), "p95": \(percentile(failoverUnbound, 0.95)), \
    "min": \(failoverUnbound.min() ?? -1), "max": \(failoverUnbound.max() ?? -1), "target": \(failoverTarget)}, \
    "failures": \(failures.count), "ok": \(ok)}
    """)
exit(ok ? 0 : 1)
