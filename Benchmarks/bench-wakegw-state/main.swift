// bench-wakegw-state: durable state writes per second for token registrations — what one
// `POST /api/v1/users/voip-push-token` costs the store — with `--state sqlite:PATH` and
// `--state postgresql://…`, beside `--state memory` (the reference) in the same run.
//
// Each write is one registration in its own transaction, committed before the next starts (the
// gateway's StateWriter commits one at a time, and the token API answers after the commit):
// SQLite in WAL with synchronous=FULL on the local disk; PostgreSQL 15 with synchronous_commit=on
// and fsync=on, a throw-away cluster on a Unix socket of the same host (PostgreSQLCluster), as one
// gateway and as two gateways writing the same database at once. Prints ONE JSON object on stdout
// (scripts/bench.sh), with the load average it ran under.
import AstraTestSupport
import Foundation
import PushKitEmu
import WakeGateway

struct Figures {
    var writes = 0
    var seconds = 0.0
    var latencies: [Double] = []

    var perSecond: Int { seconds > 0 ? Int(Double(writes) / seconds) : 0 }
    func percentileMs(_ p: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let sorted = latencies.sorted()
        let value = sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        return (value * 1000 * 1000).rounded() / 1000
    }
    var json: String {
        "{\"writes_per_second\":\(perSecond),\"writes\":\(writes),\"seconds\":\((seconds * 1000).rounded() / 1000),"
            + "\"p50_ms\":\(percentileMs(0.5)),\"p99_ms\":\(percentileMs(0.99))}"
    }
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

/// Token registrations into `store` for `budget` seconds (at most `limit`), one per commit.
func measure(_ store: any StateStore, prefix: String, budget: Double, limit: Int = 200_000) async throws -> Figures {
    var figures = Figures()
    let clock = ContinuousClock()
    let start = clock.now
    while figures.writes < limit, seconds(start.duration(to: clock.now)) < budget {
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let registration = PushRegistration(
            endpoint: "\(prefix)\(figures.writes % 5_000)", token: token, environment: .production,
            bundleID: "com.example.astra", platform: "ios", updatedAt: Int64(figures.writes), source: .api)
        let began = clock.now
        try await store.commit([.saveRegistration(registration)])
        figures.latencies.append(seconds(began.duration(to: clock.now)))
        figures.writes += 1
    }
    figures.seconds = seconds(start.duration(to: clock.now))
    return figures
}

let budget = Double(ProcessInfo.processInfo.environment["BENCH_STATE_SECONDS"] ?? "") ?? 5
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
let directory = NSTemporaryDirectory() + "astra-bench-state-\(UInt32.random(in: 0...UInt32.max))"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

let memory = try await measure(MemoryStateStore(), prefix: "m", budget: 1)
let sqliteStore = try SQLiteStateStore(path: directory + "/bench.sqlite3")
let sqlite = try await measure(sqliteStore, prefix: "s", budget: budget)
await sqliteStore.close()

var postgresql = Figures()
var twoGateways = Figures()
var postgresqlNote = "ran"
if let unavailable = PostgreSQLCluster.unavailable {
    postgresqlNote = unavailable
} else {
    let cluster = try await PostgreSQLCluster.start()
    do {
        try await cluster.createDatabase("bench")
        let one = try await PostgreSQLStateStore(url: cluster.url(database: "bench"))
        postgresql = try await measure(one, prefix: "p", budget: budget)
        let other = try await PostgreSQLStateStore(url: cluster.url(database: "bench"))
        async let a = measure(one, prefix: "a", budget: budget)
        async let b = measure(other, prefix: "b", budget: budget)
        let (fa, fb) = try await (a, b)
        twoGateways = Figures(
            writes: fa.writes + fb.writes, seconds: max(fa.seconds, fb.seconds), latencies: fa.latencies + fb.latencies)
        await one.close()
        await other.close()
    } catch {
        postgresqlNote = "failed: \(error)"
    }
    await cluster.stop()
}

print(
    "{\"benchmark\":\"bench-wakegw-state\",\"metric\":\"token_registration_writes_per_second\",\"unit\":\"writes/s\","
        + "\"memory\":\(memory.json),\"sqlite\":\(sqlite.json),\"postgresql\":\(postgresql.json),"
        + "\"postgresql_two_gateways\":\(twoGateways.json),\"postgresql_status\":\"\(postgresqlNote)\","
        + "\"one_registration_per_transaction\":true,\"sqlite_synchronous\":\"FULL\","
        + "\"postgresql_synchronous_commit\":\"on\",\"postgresql_transport\":\"unix socket, same host\","
        + "\"budget_seconds\":\(budget),\"load_average_1m_at_start\":\"\(load)\",\"cores\":\(ProcessInfo.processInfo.activeProcessorCount)}")
