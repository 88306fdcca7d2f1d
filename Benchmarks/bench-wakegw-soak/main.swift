// bench-wakegw-soak: the release astra-wakegw behind the project's Kamailio for BENCH_SOAK_SECONDS
// (default 600) at BENCH_SOAK_RATE calls/s (default 20): a steady mix of calls to registered
// lines (rung directly), killed phones woken by push (ack, REGISTER, rung, answered), phones that
// never ack (480 after the ack window) and calls the caller cancels while they are held (487);
// with BENCH_SOAK_IDLE (default 1000) idle connections held open against the API (re-opened when
// the gateway closes them) and junk datagrams (random bytes, REGISTERs with pn-*, INVITEs) sent to
// the gateway's SIP port from an untrusted socket the whole time. Prints ONE JSON object: RSS of
// the gateway process (/proc/PID/status) at start, after the warm-up minute, at the end of the
// traffic and once its state was freed; push-to-ring and failover p50/p99 over all, the first
// and the last minute (the gateway's own `ringing` / `failover` events, `since_invite_ms`); the
// gateway's heap in use (`heap_in_use_kb` of its `stats` events, glibc mallinfo2: independent of
// the machine's load, unlike latency) at the same points and its growth;
// failures (a call whose caller did not get the expected final answer).
// The soak runs twice in one process, each phase on a fresh Kamailio and gateway: with
// `--state memory`, then with durable SQLite state (BENCH_SOAK_STORES, default "memory,sqlite"),
// so what the durable store costs is read beside its reference. Targets: RSS growth ≤ 5 MB
// warm-up → end, 0 failed calls, p99s of the first and last minute within 20 %, and SQLite's
// push-to-ring p99 within 2 ms of memory's.
import AstraJSON
import Glibc
import HTTPLite
import PushKitLive
import SIPCore
import SIPTransport
import Synchronization

func environment(_ key: String) -> String? { getenv(key).map { String(cString: $0) } }
func log(_ text: String) {
    let bytes = Array("bench-wakegw-soak: \(text)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

let seconds = Int(environment("BENCH_SOAK_SECONDS") ?? "") ?? 600
let rate = Int(environment("BENCH_SOAK_RATE") ?? "") ?? 20
let idleCount = Int(environment("BENCH_SOAK_IDLE") ?? "") ?? 1_000
let stores = (environment("BENCH_SOAK_STORES") ?? "memory,sqlite").split(separator: ",").map(String.init)
guard !stores.isEmpty, stores.allSatisfy({ $0 == "memory" || $0 == "sqlite" }) else {
    log("BENCH_SOAK_STORES: expected memory, sqlite or both (comma-separated)")
    exit(64)
}
let binary = CommandLine.arguments[0]
let bin = String(binary[..<(binary.lastIndex(of: "/") ?? binary.startIndex)])
var phases: [(String, SoakPhase)] = []
for store in stores {
    guard let phase = await soakPhase(store: store, seconds: seconds, rate: rate, idleCount: idleCount, bin: bin) else {
        exit(3)
    }
    phases.append((store, phase))
}
var fields = ["\"bench\":\"wakegw-soak\"", "\"seconds\":\(seconds)"]
fields += phases.map { "\"\($0.0)\":\($0.1.json)" }
if let memory = phases.first(where: { $0.0 == "memory" })?.1, let sqlite = phases.first(where: { $0.0 == "sqlite" })?.1 {
    let delta = sqlite.pushToRingP99 - memory.pushToRingP99
    fields.append("\"push_to_ring_p99_sqlite_minus_memory_ms\":\(delta)")
    fields.append("\"target_push_to_ring_p99_delta_ms\":2")
    fields.append("\"push_to_ring_delta_ok\":\(delta <= 2)")
    fields.append("\"sqlite_rss_growth_ok\":\(sqlite.rssGrowthKB <= 5 * 1024)")
}
print("{" + fields.joined(separator: ",") + "}")
exit(phases.allSatisfy { $0.1.failures == 0 } ? 0 : 1)
