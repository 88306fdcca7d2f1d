import AstraTestSupport
import Foundation
import PushKitEmu
import Testing

@testable import WakeGateway

/// `--state postgresql://…` against a real server (docs/wake-gateway.md "Two gateways, one
/// database"): each test starts its own throw-away cluster (``PostgreSQLCluster``: initdb and
/// pg_ctl on a Unix socket in a temporary directory) and stops it. The store keeps the contract
/// of the SQLite one, shares what it holds with every other gateway on the database, refuses a
/// newer schema, and survives the server going away and coming back.
@Suite(
    .disabled(if: PostgreSQLCluster.unavailable != nil, Comment(rawValue: PostgreSQLCluster.unavailable ?? "")),
    .timeLimit(.minutes(3)))
struct PostgreSQLStateStoreTests {
    typealias Cases = StateStoreTests

    /// A started cluster and `body` run on it; the cluster is stopped and its directory removed
    /// whatever `body` does.
    static func withCluster(_ body: (PostgreSQLCluster) async throws -> Void) async throws {
        try await PostgreSQLCluster.with(body)
    }

    @Test func keepsTheContractAcrossAReopenWithSynchronousCommitAndAVersionedSchema() async throws {
        try await Self.withCluster { cluster in
            try await cluster.createDatabase("gw")
            // The server's default says off: the store's own sessions still commit synchronously.
            try await cluster.psql("ALTER DATABASE gw SET synchronous_commit = off")
            let store = try await PostgreSQLStateStore(url: cluster.url(database: "gw"))
            #expect(try await store.setting("synchronous_commit") == "on")
            #expect(store.isShared)
            #expect(!store.location.contains(cluster.password), "the password in the location")
            try await Cases.exercise(store)
            await store.close()
            await #expect(throws: StateStoreError.self) { try await store.load() }
            #expect(try await cluster.psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_version", database: "gw") == "1,2")
            // Reopened through the factory and the other scheme name: the migration is not run twice.
            let reopened = try await StateStores.open(cluster.url(database: "gw", scheme: "postgres"))
            let snapshot = try await reopened.load()
            #expect(Set(snapshot.registrations) == [
                Cases.registration("1001", at: 2_000), Cases.registration("1001", source: .rfc8599),
            ])
            #expect(snapshot.rateBuckets == [StateRateBucket(endpoint: "1001", milli: 3_000, atWallMs: 77)])
            await reopened.close()
            #expect(try await cluster.psql("SELECT count(*) FROM schema_version", database: "gw") == "2")
        }
    }

    /// A database of schema 1 (before sealed push) is migrated in place: its registrations load
    /// with no sealing, and a sealed one saved after the migration comes back whole.
    @Test func aSchemaOneDatabaseIsMigratedAndKeepsItsRegistrations() async throws {
        try await Self.withCluster { cluster in
            try await cluster.createDatabase("gw")
            try await cluster.psql(
                """
                CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
                \(PostgreSQLStateStore.migrations[0])
                INSERT INTO schema_version (version) VALUES (1);
                INSERT INTO push_registration VALUES ('1001', 'api', '\(Cases.token)', 'production', 'com.example.astra', 'ios', 5);
                """, database: "gw")
            let store = try await PostgreSQLStateStore(url: cluster.url(database: "gw"))
            #expect(try await store.load().registrations == [Cases.registration("1001", at: 5)])
            try await store.commit([.saveRegistration(Cases.registration("1001", source: .rfc8599))])
            #expect(try await store.registrations(endpoint: "1001").contains { $0.sealing == Cases.sealing })
            await store.close()
            #expect(
                try await cluster.psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_version", database: "gw")
                    == "1,2")
        }
    }

    @Test func aNewerSchemaIsRefusedAndLeftAlone() async throws {
        try await Self.withCluster { cluster in
            try await cluster.createDatabase("gw")
            try await PostgreSQLStateStore(url: cluster.url(database: "gw")).close()
            try await cluster.psql("INSERT INTO schema_version (version) VALUES (7)", database: "gw")
            do {
                _ = try await StateStores.open(cluster.url(database: "gw"))
                Issue.record("a schema of version 7 was opened")
            } catch let error as StateStoreError {
                #expect(error.kind == .refused)
                #expect(error.message.contains("schema version 7"), "\(error.message)")
                #expect(!error.message.contains(cluster.password))
            }
            #expect(try await cluster.psql("SELECT max(version) FROM schema_version", database: "gw") == "7")
        }
    }

    /// Two gateways on one database: they migrate together once, and each reads what the other
    /// wrote the moment it was committed (no cache in between).
    @Test func twoStoresOnOneDatabaseSeeEachOthersWrites() async throws {
        try await Self.withCluster { cluster in
            try await cluster.createDatabase("gw")
            let url = cluster.url(database: "gw")
            async let openA = PostgreSQLStateStore(url: url)
            async let openB = PostgreSQLStateStore(url: url)
            let (a, b) = try await (openA, openB)
            #expect(try await cluster.psql("SELECT count(*) FROM schema_version", database: "gw") == "2")
            try await a.commit([.saveRegistration(Cases.registration("2001"))])
            #expect(try await b.registrations(endpoint: "2001") == [Cases.registration("2001")])
            try await b.commit([.deleteRegistration(endpoint: "2001", source: .api)])
            #expect(try await a.registrations(endpoint: "2001").isEmpty)
            // The working copy of a gateway follows the shared store when it reads it back.
            var working = PushTokenStore()
            working.restore(Cases.registration("2002"))
            try await a.commit([.saveRegistration(Cases.registration("2002", source: .rfc8599, at: 5))])
            working.replace(endpoint: "2002", with: try await b.registrations(endpoint: "2002"))
            #expect(working.registration(for: "2002")?.source == .rfc8599)
            #expect(working.api["2002"] == nil)
            await a.close()
            await b.close()
        }
    }

    /// The server goes away: every write fails while it is away (the gateway answers 503), none
    /// is half applied, and the first write after it is back reconnects and commits.
    @Test func aLostConnectionFailsEachWriteUntilTheServerIsBack() async throws {
        try await Self.withCluster { cluster in
            try await cluster.createDatabase("gw")
            let store = try await PostgreSQLStateStore(url: cluster.url(database: "gw"))
            try await store.commit([.saveRegistration(Cases.registration("3001"))])
            await cluster.stop(remove: false)
            for _ in 0..<2 {
                do {
                    try await store.commit([.saveRegistration(Cases.registration("3002"))])
                    Issue.record("a write with the server down was acknowledged")
                } catch let error as StateStoreError {
                    #expect(error.kind == .failed)
                    #expect(!error.message.contains(cluster.password), "the password in the error")
                }
            }
            try await cluster.restart()
            try await store.commit([.saveRegistration(Cases.registration("3003"))])
            let endpoints = Set(try await store.load().registrations.map(\.endpoint))
            #expect(endpoints == ["3001", "3003"])
            await store.close()
        }
    }
}
