import AstraTestSupport
import Foundation
import HTTPLite
import JWT
import SIPCore
import SIPTransport
import Testing

import WakeGateway

/// The real astra-wakegw on `--state postgresql://…` (docs/wake-gateway.md "Two gateways, one
/// database"), each test on its own throw-away cluster (``PostgreSQLCluster``): `kill -9` during
/// writes loses no acknowledged token, and two gateways on one database answer for each other's
/// registrations.
@Suite(
    .disabled(if: PostgreSQLCluster.unavailable != nil, Comment(rawValue: PostgreSQLCluster.unavailable ?? "")))
struct WakeGatewayPostgreSQLTests {
    typealias Gateway = WakeGatewayResourceTests.Gateway

    /// A started cluster with database `gw` and `body` run on it; the cluster is stopped and its
    /// directory removed whatever `body` does. A failure shows the end of the server's log.
    static func withDatabase(_ body: (PostgreSQLCluster, String) async throws -> Void) async throws {
        try await PostgreSQLCluster.with { cluster in
            do {
                try await cluster.createDatabase("gw")
                try await body(cluster, cluster.url(database: "gw"))
            } catch {
                Issue.record("server log: \(cluster.log.suffix(2_000))")
                throw error
            }
        }
    }

    /// Rounds on PostgreSQL: 100 by default, so that this suite stays within a minute of CI
    /// (a round is a gateway start, up to 150 ms of writes and a kill: 200 rounds take ~70 s on
    /// two idle cores). `ASTRA_PG_KILL_ROUNDS=200` runs the full 200 (docs/wake-gateway.md).
    static let rounds = ProcessInfo.processInfo.environment["ASTRA_PG_KILL_ROUNDS"].flatMap(Int.init) ?? 100

    /// The SQLite kill loop (``WakeGatewayKillTests/killLoop(state:rounds:stored:)``) on
    /// PostgreSQL: the token API's 200 comes after the server flushed the commit, so every token
    /// answered 200 is in the database after the kill, read by a store of its own.
    @Test(.timeLimit(.minutes(5))) func everyAcknowledgedTokenSurvivesKillNine() async throws {
        try await Self.withDatabase { _, url in
            let reader = try await PostgreSQLStateStore(url: url)
            try await WakeGatewayKillTests.killLoop(state: url, rounds: Self.rounds) {
                try await reader.load().registrations
            }
            await reader.close()
        }
    }

    /// A token stored through one gateway is seen by the other (status, and the INVITE path reads
    /// the same way), and a delete through the other is seen by the first: nothing is cached.
    @Test(.timeLimit(.minutes(2))) func twoGatewaysShareRegistrations() async throws {
        try await Self.withDatabase { _, url in
            let kamailio = SocketAddress(ip: "127.0.0.1", port: 9)!
            let args = ["--state", url, "--stats-interval-s", "0", "--heap-trim-interval-s", "0"]
            let a = try await Gateway.start(kamailio: kamailio, args)
            let b = try await Gateway.start(kamailio: kamailio, args)
            defer { for keyFile in [a.keyFile, b.keyFile] { unlink(keyFile) } }
            let token = SecureBytes.hex(KeyMaterial.bytes(32))
            #expect(try await a.registerToken("4001", token: token, bearer: a.adminBearer()) == 200)
            let seenByB = try await Self.status(b, "4001", bearer: b.adminBearer())
            #expect(seenByB.contains("\"registered\":true"), "gateway B: \(seenByB)")
            let deleted = try await Gateway.request(
                b.http, "DELETE", "/api/v1/users/voip-push-token?asterisk_endpoint=4001", "", bearer: b.adminBearer())
            #expect(deleted.status == 200)
            let seenByA = try await Self.status(a, "4001", bearer: a.adminBearer())
            #expect(seenByA.contains("\"registered\":false"), "gateway A: \(seenByA)")
            // Neither gateway logged the database password, nor let libpq print the server's
            // notices among its diagnostics (B's start found the tables A made: a NOTICE).
            for gateway in [a, b] {
                #expect(!gateway.process.stderr.contains("NOTICE"), "\(gateway.process.stderr)")
                #expect(!gateway.process.stderr.contains(PostgreSQLCluster.passwordOf(url)))
                #expect(!gateway.process.stdout.contains(PostgreSQLCluster.passwordOf(url)))
            }
            await a.stop()
            await b.stop()
        }
    }

    /// Down at start: exit 3 (a database that may come back), one line naming it without its
    /// password; a newer schema: exit 64.
    @Test(.timeLimit(.minutes(2))) func unreachableAndNewerDatabasesAreClearErrors() async throws {
        try await Self.withDatabase { cluster, url in
            let keyFile = NSTemporaryDirectory() + "astra-wakegw-key-\(UUID().uuidString)"
            try Data((SecureBytes.hex(KeyMaterial.bytes(32)) + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
            defer { unlink(keyFile) }
            func run(_ state: String) async throws -> (Int32?, String, String) {
                try await ToolProcess.run(
                    "astra-wakegw",
                    [
                        "--sip", "127.0.0.1:0", "--kamailio", "127.0.0.1:9", "--http-port", "0", "--apns-device-port", "0",
                        "--jwt-hs256-secret-file", keyFile, "--json", "--state", state,
                    ])
            }
            let password = PostgreSQLCluster.passwordOf(url)
            let (downStatus, _, downErr) = try await run(url.replacingOccurrences(of: "/gw?", with: "/nodb?"))
            #expect(downStatus == 3, "\(downErr)")
            #expect(downErr.contains("nodb"), "\(downErr)")
            #expect(!downErr.contains(password), "the password on stderr")
            try await PostgreSQLStateStore(url: url).close()
            try await cluster.psql("INSERT INTO schema_version (version) VALUES (99)", database: "gw")
            let (newerStatus, _, newerErr) = try await run(url)
            #expect(newerStatus == 64, "\(newerErr)")
            #expect(newerErr.contains("schema version 99"), "\(newerErr)")
        }
    }

    /// `voip-push-status` of `user`: the body (the connection closes after the answer).
    static func status(_ gateway: Gateway, _ user: String, bearer: String) async throws -> String {
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: gateway.http)
        defer { connection.close() }
        let text =
            "GET /api/v1/users/voip-push-status?asterisk_endpoint=\(user) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: Bearer \(bearer)\r\nConnection: close\r\n\r\n"
        _ = await connection.write(Array(text.utf8))
        var buffer: [UInt8] = []
        for await event in connection.events {
            guard case .data(let bytes) = event else { break }
            buffer += bytes
        }
        return String(decoding: buffer, as: UTF8.self)
    }
}

extension PostgreSQLCluster {
    /// The password part of one of ``url(database:scheme:)``'s URLs.
    static func passwordOf(_ url: String) -> String {
        guard let at = url.firstIndex(of: "@"), let colon = url[..<at].lastIndex(of: ":") else { return "\u{0}" }
        return String(url[url.index(after: colon)..<at])
    }
}
