import AstraTestSupport
import Foundation
import JWT
import SIPCore
import SIPTransport
import Synchronization
import Testing

import WakeGateway

/// `kill -9` during writes (docs/wake-gateway.md "State"): the real astra-wakegw registers push
/// tokens from two writers in a loop and is SIGKILLed at a random point, 200 times over one
/// SQLite file. Every token whose POST was answered 200 must be in the file after the kill, and
/// every restart must open the file the kill left (a hot WAL) and serve it.
@Suite struct WakeGatewayKillTests {
    typealias Gateway = WakeGatewayResourceTests.Gateway

    final class Acknowledged: Sendable {
        let map = Mutex<[String: String]>([:])
        func add(_ user: String, _ token: String) { map.withLock { $0[user] = token } }
        var all: [String: String] { map.withLock { $0 } }
    }

    /// Rounds on SQLite: 200 by default; `ASTRA_KILL_ROUNDS` shortens a local run.
    static let rounds = ProcessInfo.processInfo.environment["ASTRA_KILL_ROUNDS"].flatMap(Int.init) ?? 200

    @Test(.timeLimit(.minutes(5))) func everyAcknowledgedTokenSurvivesKillNine() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("astra-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("gw.sqlite3").path
        try await Self.killLoop(state: "sqlite:" + path, rounds: Self.rounds) {
            // Read the file the kill left, as the next gateway will.
            // Closed before the next gateway starts: it takes the file's lock.
            let store = try SQLiteStateStore(path: path)
            let registrations = try await store.load().registrations
            await store.close()
            return registrations
        }
    }

    /// The loop: start the gateway on `state`, two writers register tokens, SIGKILL at a random
    /// point; then `stored` (the store read back independently of the dead gateway) must hold
    /// every token that got a 200, and the next gateway's `state_loaded` at least that many.
    static func killLoop(state: String, rounds: Int, stored: () async throws -> [PushRegistration]) async throws {
        let kamailio = SocketAddress(ip: "127.0.0.1", port: 9)!  // no SIP in this test
        let acknowledged = Acknowledged()
        var generator = SystemRandomNumberGenerator()
        let started = ContinuousClock.now
        var killedWhileWriting = 0
        for round in 0..<rounds {
            let gateway = try await Gateway.start(
                kamailio: kamailio, ["--state", state, "--stats-interval-s", "0", "--heap-trim-interval-s", "0"])
            // The restart served what was acknowledged before: the file the last kill left opens.
            let loaded = gateway.process.events("state_loaded").first ?? ""
            let count = Int(CallToolHarness.field("api_registrations", in: loaded) ?? "") ?? -1
            #expect(count >= acknowledged.all.count, "round \(round): \(loaded)")
            let bearer = try gateway.adminBearer()
            let writers = (0..<2).map { writer in
                Task {
                    var n = 0
                    while !Task.isCancelled {
                        let user = "k\(round)-\(writer)-\(n)"
                        let token = SecureBytes.hex(KeyMaterial.bytes(32))
                        n += 1
                        guard let status = try? await gateway.registerToken(user, token: token, bearer: bearer) else {
                            return n  // the connection died with the gateway
                        }
                        if status == 200 { acknowledged.add(user, token) }
                    }
                    return n
                }
            }
            // A random point: from at once to 150 ms into the writes.
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...150, using: &generator)))
            gateway.process.signal(SIGKILL)
            let status = await gateway.process.exitStatus(within: .seconds(10))
            #expect(status != nil && status != 0, "round \(round): \(String(describing: status))")
            for writer in writers { if await writer.value > 1 { killedWhileWriting += 1 } }
            unlink(gateway.keyFile)
            let stored = Dictionary(
                try await stored().filter { $0.source == .api }.map { ($0.endpoint, $0.token) },
                uniquingKeysWith: { a, _ in a })
            // Counted, never printed: the tokens are secrets even in a test.
            let missing = acknowledged.all.filter { stored[$0.key] != $0.value }.count
            #expect(missing == 0, "round \(round): \(missing) acknowledged tokens lost")
            if missing > 0 { break }
        }
        let elapsed = ContinuousClock.now - started
        let kind = state.hasPrefix("sqlite:") ? "sqlite" : "postgresql"  // never the URL: it holds a password
        print("kill -9 (\(kind)): \(rounds) rounds, \(acknowledged.all.count) acknowledged tokens, "
            + "\(killedWhileWriting) writers cut mid-loop, \(elapsed)")
        // The kills landed among the writes, not only before the first one.
        #expect(acknowledged.all.count > rounds)
        #expect(killedWhileWriting > rounds / 2)
    }
}
