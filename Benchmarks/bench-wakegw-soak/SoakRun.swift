import AstraJSON
import Glibc
import HTTPLite
import PushKitLive
import SIPCore
import SIPTransport
import Synchronization

/// A soak call's kind: 3 registered, 3 woken, 2 no-ack, 2 cancelled per 10.
enum Kind: String, Sendable { case registered, woken, noAck = "no_ack", cancelled }

struct Outcome: Sendable {
    var kind: Kind
    var status: Int
}

/// What one phase (one state store) measured: its JSON object and the figures compared across
/// phases.
/// What the phase's tasks share: the stop flag and the counters they add to.
final class SoakShared: Sendable {
    let stop = Mutex(false)
    let reopened = Mutex(0)
    let junkSent = Mutex(0)
    let outcomes = Mutex<[Outcome]>([])
    let skipped = Mutex(0)
}

struct SoakPhase {
    var json: String
    var failures: Int
    var pushToRingP99: Int64
    var rssGrowthKB: Int
}

/// One soak phase: a fresh Kamailio and release astra-wakegw with `store` state (`sqlite`: a file
/// private to the run, or `memory`), `seconds` of traffic at `rate` calls/s beside `idleCount` idle API
/// connections and junk datagrams. Nil when the peers could not be started.
func soakPhase(store: String, seconds: Int, rate: Int, idleCount: Int, bin: String) async -> SoakPhase? {
    let warmUpSeconds = min(60, max(seconds / 5, 1))
    var settings = LiveInfrastructure.GatewaySettings()
    settings.state = store == "memory" ? "memory" : nil
    settings.ackWindowMs = 1_000
    // Each soak user is rung every few seconds (99 lines in the project's Kamailio): the per-user
    // push cap (default 5 + 10/min) is raised for the run so that the cap is not what is measured.
    settings.extraArguments = ["--push-burst", "20", "--push-per-minute", "120", "--stats-interval-s", "10"]
    let infrastructure: LiveInfrastructure
    do {
        infrastructure = try await LiveInfrastructure.start(
            wakegw: (bin.isEmpty ? "." : bin) + "/astra-wakegw", kamailioScript: "scripts/kamailio.sh", settings: settings)
    } catch {
        log("\(error)")
        return nil
    }
    let env = infrastructure.environment
    let kamailio = SocketAddress(ip: "127.0.0.1", port: env.sipPort)!
    func rssKB() -> Int {
        let text = ChildText.read("/proc/\(infrastructure.gatewayPID)/status")
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    let gatewaySIP: SocketAddress = {
        let listening = infrastructure.gatewayLog.split(separator: "\n").first { $0.contains("\"event\":\"listening\"") } ?? ""
        let port = listening.split(separator: "\"sip\":\"127.0.0.1:").dropFirst().first?.prefix { $0.isNumber } ?? ""
        return SocketAddress(ip: "127.0.0.1", port: UInt16(port) ?? 0)!
    }()

    // Lines: callers 1001–1019, registered 1020–1039, woken 1040–1069, never-ack 1070–1084,
    // cancelled 1085–1099.
    func users(_ range: ClosedRange<Int>) -> [String] { range.map(String.init) }
    func client(_ user: String) -> GatewayClient {
        GatewayClient(host: "127.0.0.1", port: env.httpPort, bearer: env.gatewayAuth?.bearer(for: user))
    }
    var callers: [SoakCaller] = []
    var registered: [SoakPhone] = []
    var woken: [SoakPhone] = []
    var noAck: [SoakPhone] = []
    var cancelled: [SoakPhone] = []
    do {
        callers = try users(1001...1019).map { try SoakCaller(user: $0, kamailio: kamailio) }
        registered = try users(1020...1039).map { try SoakPhone(user: $0, kind: .registered, kamailio: kamailio, gateway: client($0)) }
        woken = try users(1040...1069).map { try SoakPhone(user: $0, kind: .woken, kamailio: kamailio, gateway: client($0)) }
        noAck = try users(1070...1084).map { try SoakPhone(user: $0, kind: .deaf, kamailio: kamailio, gateway: client($0)) }
        cancelled = try users(1085...1099).map { try SoakPhone(user: $0, kind: .deaf, kamailio: kamailio, gateway: client($0)) }
        for phone in registered where !(await phone.register(expires: 300)) { throw SoakError("REGISTER \(phone.user) failed") }
        for phone in woken + noAck + cancelled { try await phone.connectDevice(apnsPort: env.apnsDevicePort) }
    } catch {
        log("setup: \(error)")
        infrastructure.stop()
        return nil
    }
    /// The gateway's heap in use (KiB) in its latest `stats` event (every 10 s), -1 before the first.
    func heapKB() -> Int {
        let log = infrastructure.gatewayLog
        guard let stats = log.split(separator: "\n").last(where: { $0.contains("\"event\":\"stats\"") }),
            let json = try? JSONValue.parse(String(stats)), let heap = json["heap_in_use_kb"]?.int64Value
        else { return -1 }
        return Int(heap)
    }
    let rssStart = rssKB()
    let heapStart = heapKB()

    // Pressure for the whole run: idle API connections and junk on the SIP port.
    let shared = SoakShared()
    let idleTasks = (0..<idleCount).map { _ in
        Task {
            while !shared.stop.withLock({ $0 }) {
                guard let connection = try? TCPConnection.connect(host: "127.0.0.1", port: env.httpPort) else {
                    try? await Task.sleep(for: .milliseconds(100))
                    continue
                }
                for await event in connection.events { if case .closed = event { break } }
                connection.close()
                shared.reopened.withLock { $0 += 1 }
            }
        }
    }
    let junk = Task {
        guard let udp = try? UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!, log: .discard) else { return }
        var n = 0
        while !shared.stop.withLock({ $0 }) {
            n += 1
            let user = "10\(20 + n % 80)"
            let bytes: [UInt8]
            switch n % 3 {
            case 0: bytes = KeyMaterial.bytes(64 + n % 400)
            case 1:
                bytes = SoakMessages.request(
                    "REGISTER", uri: "sip:127.0.0.1", from: user, fromTag: "j\(n)", to: user, callID: "junk-\(n)", cseq: 1,
                    port: udp.local.port, branch: "z9hG4bK-junk-\(n)",
                    extra: ["Expires: 300"], contact: false)
                    + []
            default:
                bytes = SoakMessages.request(
                    "INVITE", uri: "sip:\(user)@127.0.0.1", from: "1099", fromTag: "j\(n)", to: user, callID: "junk-\(n)",
                    cseq: 1, port: udp.local.port, branch: "z9hG4bK-junk-\(n)")
            }
            try? await udp.send(bytes, to: gatewaySIP)
            shared.junkSent.withLock { $0 += 1 }
            try? await Task.sleep(for: .milliseconds(20))
        }
        await udp.close()
    }

    // The calls: one every 1/rate s, kinds in a fixed pattern (3 registered, 3 woken, 2 no-ack, 2
    // cancelled per 10), users round-robin per kind, skipping a phone still busy with its last call.
    let pattern: [Kind] = [.registered, .woken, .noAck, .woken, .cancelled, .registered, .woken, .noAck, .registered, .cancelled]
    let expected: [Kind: Int] = [.registered: 200, .woken: 200, .noAck: 480, .cancelled: 487]
    var cursor: [Kind: Int] = [:]
    let total = seconds * rate
    let interval = Duration.milliseconds(1_000 / max(rate, 1))
    let startTime = ContinuousClock.now
    var rssWarm = -1
    /// The machine's load when the warm-up minute ended: latency figures are load-sensitive.
    var loadWarm = ""
    var heapWarm = -1
    var calls: [Task<Void, Never>] = []
    log("\(store): \(total) calls over \(seconds) s, \(idleCount) idle connections, junk every 20 ms")
    for i in 0..<total {
        try? await Task.sleep(until: startTime.advanced(by: interval * i), clock: .continuous)  // pacing
        if rssWarm < 0, startTime.duration(to: .now) >= .seconds(warmUpSeconds) {
            rssWarm = rssKB()
            loadWarm = ChildText.read("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ")
            heapWarm = heapKB()
        }
        if i > 0, i % (120 * rate) == 0 {
            // The registered lines refresh every 2 minutes (their bindings last 300 s).
            for phone in registered { Task { _ = await phone.register(expires: 300) } }
        }
        let kind = pattern[i % pattern.count]
        let pool = kind == .registered ? registered : kind == .woken ? woken : kind == .noAck ? noAck : cancelled
        var phone: SoakPhone?
        for step in 0..<pool.count {
            let candidate = pool[((cursor[kind] ?? 0) + step) % pool.count]
            if candidate.busy.withLock({ busy in
                if busy { return false }
                busy = true
                return true
            }) {
                phone = candidate
                cursor[kind] = ((cursor[kind] ?? 0) + step + 1) % pool.count
                break
            }
        }
        guard let phone else {
            shared.skipped.withLock { $0 += 1 }
            continue
        }
        let caller = callers[i % callers.count]
        calls.append(
            Task {
                let status = await caller.call(phone.user, cancelAfterMs: kind == .cancelled ? 300 : nil, talkMs: 100)
                if kind == .woken { _ = await phone.register(expires: 0) }
                shared.outcomes.withLock { $0.append(Outcome(kind: kind, status: status)) }
                phone.busy.withLock { $0 = false }
            })
        if calls.count > 2_000 { calls.removeFirst(1_000) }
    }
    for call in calls { await call.value }
    let trafficSeconds = Double(startTime.duration(to: .now).components.seconds)
    let rssEnd = rssKB()
    let heapEnd = heapKB()
    shared.stop.withLock { $0 = true }
    junk.cancel()
    for task in idleTasks { task.cancel() }
    // Everything a finished call holds is freed 64·T1 (32 s) after its final answer.
    try? await Task.sleep(for: .seconds(40))
    let rssSettled = rssKB()
    let heapSettled = heapKB()

    // Figures from the gateway's own events.
    let report = SoakReport(log: infrastructure.gatewayLog)
    let results = shared.outcomes.withLock { $0 }
    let failures = results.filter { $0.status != expected[$0.kind] }
    var failedBy: [String: Int] = [:]
    for failure in failures { failedBy["\(failure.kind.rawValue):\(failure.status)", default: 0] += 1 }
    var byKind: [String: Int] = [:]
    for result in results { byKind[result.kind.rawValue, default: 0] += 1 }
    func object(_ pairs: [(String, String)]) -> String { "{" + pairs.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}" }
    let load = ChildText.read("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ")
    let json = object([
        ("state", "\"\(store)\""), ("peer", "\"kamailio + release astra-wakegw, loopback UDP\""),
        ("seconds", "\(seconds)"), ("traffic_seconds", "\(Int(trafficSeconds))"), ("rate_per_s", "\(rate)"),
        ("calls", "\(results.count)"), ("calls_by_kind", object(byKind.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") })),
        ("skipped_busy", "\(shared.skipped.withLock { $0 })"), ("failed_calls", "\(failures.count)"),
        ("failed_by", object(failedBy.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") })),
        ("idle_connections", "\(idleCount)"), ("idle_reopened", "\(shared.reopened.withLock { $0 })"),
        ("junk_datagrams", "\(shared.junkSent.withLock { $0 })"),
        // Parseable junk reaches the trust check and is counted there; random bytes are dropped by
        // the transport's parser before it.
        ("gateway_sip_untrusted", "\(report.lastStat("sip_untrusted"))"),
        ("rss_kb", object([("start", "\(rssStart)"), ("after_warmup", "\(rssWarm)"), ("end", "\(rssEnd)"), ("settled", "\(rssSettled)")])),
        ("rss_growth_warmup_to_end_kb", "\(rssEnd - rssWarm)"),
        ("heap_in_use_kb", object([("start", "\(heapStart)"), ("after_warmup", "\(heapWarm)"), ("end", "\(heapEnd)"), ("settled", "\(heapSettled)")])),
        ("heap_growth_warmup_to_end_kb", "\(heapEnd - heapWarm)"),
        ("push_to_ring_ms", report.summary(report.pushToRing)), ("failover_ms", report.summary(report.failover)),
        ("held_calls_settled", "\(report.lastStat("held_calls"))"), ("held_decisions_settled", "\(report.lastStat("held_decisions"))"),
        // The longest heap trim of the gateway in any stats interval (its --heap-trim-interval-s).
        ("heap_trim_max_us", "\(report.series.compactMap { $0["heap_trim_max_us"] }.max() ?? -1)"),
        ("load_average_after_warmup", "\"\(loadWarm)\""), ("load_average", "\"\(load)\""),
    ])
    // The gateway's own view every 10 s (stderr): RSS and the tables a leak would grow.
    for point in report.series {
        let keys = ["t", "rss_kb", "heap_in_use_kb", "held_calls", "held_decisions", "held_push_grants", "held_retransmissions", "http_connections",
            "apns_connections", "apns_models", "heap_trim_max_us"]
        log(keys.map { "\($0)=\(point[$0] ?? -1)" }.joined(separator: " "))
    }
    for phone in woken + noAck + cancelled { phone.close() }
    infrastructure.stop()
    return SoakPhase(
        json: json, failures: failures.count, pushToRingP99: SoakReport.percentile(report.pushToRing.map(\.ms), 0.99),
        rssGrowthKB: rssEnd - rssWarm)
}
