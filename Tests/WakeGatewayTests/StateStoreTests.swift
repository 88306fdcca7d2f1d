import Foundation
import PushKitEmu
import Testing

@testable import WakeGateway

/// The durable state (docs/wake-gateway.md "State"): both stores keep the same contract; the
/// SQLite file is WAL, private, versioned, and refused — never replaced — when it is corrupt, of
/// a newer schema or another program's.
@Suite struct StateStoreTests {
    static let token = String(repeating: "c0ffee", count: 10) + "abcd"

    /// A fresh directory for one test's files.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("astra-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// RFC 8599 registrations of the contract carry a sealing (migration 2), API ones do not.
    static func registration(_ endpoint: String, source: PushRegistration.Source = .api, at: Int64 = 1_000)
        -> PushRegistration
    {
        PushRegistration(
            endpoint: endpoint, token: token, environment: .production, bundleID: "com.example.astra", platform: "ios",
            updatedAt: at, source: source, sealing: source == .rfc8599 ? sealing : nil)
    }

    /// A sealing as stored (the values need not verify: the store keeps what the gateway checked).
    static let sealing = PushSealing(
        deviceKey: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE-device-key", grant: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
        callKey: (0..<32).map { UInt8($0 &* 7 &+ 1) }, grantExpiresAt: 1_900_000_000)

    static func mode(_ path: String) -> UInt16 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? NSNumber)?.uint16Value ?? 0
    }

    /// Every kind of change, then the snapshot: what was saved, minus what was deleted.
    static func exercise(_ store: any StateStore) async throws {
        try await store.commit([
            .saveRegistration(registration("1001")), .saveRegistration(registration("1001", source: .rfc8599)),
            .saveRegistration(registration("1002")), .saveRateBucket(endpoint: "1001", milli: 3_000, atWallMs: 77),
            .saveRateBucket(endpoint: "1002", milli: 1, atWallMs: 78), .saveBackoff(token: token, untilWallMs: 99),
        ])
        try await store.commit([
            .deleteRegistration(endpoint: "1002", source: .api), .deleteRateBucket(endpoint: "1002"),
            .saveRegistration(registration("1001", at: 2_000)),
        ])
        let snapshot = try await store.load()
        #expect(Set(snapshot.registrations) == [registration("1001", at: 2_000), registration("1001", source: .rfc8599)])
        #expect(snapshot.rateBuckets == [StateRateBucket(endpoint: "1001", milli: 3_000, atWallMs: 77)])
        #expect(snapshot.backoffs == [StateBackoff(token: token, untilWallMs: 99)])
    }

    @Test func memoryStoreKeepsTheContract() async throws {
        try await Self.exercise(MemoryStateStore())
    }

    @Test func sqliteKeepsEverythingAcrossAReopenInWALWithMode0600() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite3").path
        let store = try SQLiteStateStore(path: path)
        try await Self.exercise(store)
        // WAL: the committed transactions sit in the -wal file, which has the database's mode.
        #expect(Self.mode(path) == 0o600)
        #expect(Self.mode(path + "-wal") == 0o600)
        #expect(Self.mode(path + "-shm") == 0o600)
        await store.close()
        let reopened = try SQLiteStateStore(path: path)
        let snapshot = try await reopened.load()
        #expect(snapshot.registrations.count == 2)
        #expect(snapshot.registrations.contains(Self.registration("1001", at: 2_000)))
        #expect(snapshot.backoffs.count == 1)
        await reopened.close()
    }

    @Test func aLooseModeIsTightened() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite3").path
        try await SQLiteStateStore(path: path).close()
        chmod(path, 0o644)
        let store = try SQLiteStateStore(path: path)
        #expect(Self.mode(path) == 0o600)
        await store.close()
    }

    /// The file is refused with one line that says why, and its bytes are left exactly as they were.
    static func refused(_ path: String, _ expected: String) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StateStoreError.self) { try SQLiteStateStore(path: path) }
        do {
            _ = try SQLiteStateStore(path: path)
        } catch {
            #expect(error.kind == .refused)
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("garbage.sqlite3").path
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: path))
        try Self.refused(path, "is not an SQLite database")
    }

    @Test func aDamagedDatabaseIsRefusedAndLeftAlone() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite3").path
        let store = try SQLiteStateStore(path: path)
        try await store.commit((0..<400).map { .saveRegistration(Self.registration("user-\($0)")) })
        await store.close()  // the last connection checkpoints the WAL into the file
        // Scribble over the middle of the file (the table's pages), keeping SQLite's header.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 4_096 + 100)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 8_000))
        try handle.close()
        try Self.refused(path, "corrupt")
    }

    @Test func aNewerSchemaIsRefusedAndLeftAlone() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite3").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let db = try SQLiteDatabase(path: path)
        try db.exec("PRAGMA application_id=\(SQLiteStateStore.applicationID); PRAGMA user_version=99; CREATE TABLE later(x)")
        db.close()
        try Self.refused(path, "schema version 99, this astra-wakegw knows up to \(SQLiteStateStore.migrations.count)")
    }

    /// A file of schema 1 (before sealed push) is migrated in place: its registrations load with
    /// no sealing, and a sealed one saved after the migration comes back whole.
    @Test func aSchemaOneFileIsMigratedAndKeepsItsRegistrations() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite3").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let db = try SQLiteDatabase(path: path)
        try db.exec(SQLiteStateStore.migrations[0])
        try db.exec("PRAGMA application_id=\(SQLiteStateStore.applicationID); PRAGMA user_version=1")
        try db.exec(
            """
            INSERT INTO push_registration VALUES ('1001', 'api', '\(Self.token)', 'production', 'com.example.astra', 'ios', 5)
            """)
        db.close()
        let store = try SQLiteStateStore(path: path)
        #expect(try await store.load().registrations == [Self.registration("1001", at: 5)])
        try await store.commit([.saveRegistration(Self.registration("1001", source: .rfc8599))])
        await store.close()
        let check = try SQLiteDatabase(path: path)
        #expect(try check.scalar("PRAGMA user_version") == "\(SQLiteStateStore.migrations.count)")
        check.close()
        let reopened = try SQLiteStateStore(path: path)
        #expect(Set(try await reopened.load().registrations) == [
            Self.registration("1001", at: 5), Self.registration("1001", source: .rfc8599),
        ])
        #expect(try await reopened.load().registrations.contains { $0.sealing == Self.sealing })
        await reopened.close()
    }

    @Test func anotherProgramsDatabaseIsRefused() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("other.sqlite3").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let db = try SQLiteDatabase(path: path)
        try db.exec("CREATE TABLE photos(id INTEGER PRIMARY KEY)")
        db.close()
        try Self.refused(path, "another program")
    }

    @Test func oneGatewayPerFile() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite3").path
        let first = try SQLiteStateStore(path: path)
        #expect(throws: StateStoreError.self) { try SQLiteStateStore(path: path) }
        await first.close()
        let second = try SQLiteStateStore(path: path)
        await second.close()
    }

    /// A process spawned by another thread holds a copy of every descriptor until its `exec`.
    /// Closing the store in that window must still let the next gateway in: the copies are made
    /// here with `dup`, which is what the spawn does, so the window is always open.
    @Test func closeReleasesTheFileWhileACopyOfItsDescriptorLives() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite3").path
        let first = try SQLiteStateStore(path: path)
        let copies = try Self.descriptors(of: path).map { dup($0) }
        defer { for fd in copies { close(fd) } }
        #expect(!copies.isEmpty)
        await first.close()
        let second = try SQLiteStateStore(path: path)
        await second.close()
    }

    /// This process's descriptors open on `path` (from /proc/self/fd).
    static func descriptors(of path: String) throws -> [Int32] {
        let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return names.compactMap { name in
            guard let fd = Int32(name),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                target == path
            else { return nil }
            return fd
        }
    }

    @Test func stateURLs() async throws {
        #expect(StateStores.defaultLocation(environment: [:]) == "sqlite:astra-wakegw.sqlite3")
        #expect(
            StateStores.defaultLocation(environment: ["STATE_DIRECTORY": "/var/lib/astra-wakegw:/x"])
                == "sqlite:/var/lib/astra-wakegw/astra-wakegw.sqlite3")
        // Through the one redactor: the password of the URI and a password= parameter.
        #expect(StateStores.redactedURL("postgresql://gw:s3cret@db/astra") == "postgresql://gw:<redacted>@db/astra")
        #expect(StateStores.redactedURL("postgres://gw:s3cret@db/astra") == "postgres://gw:<redacted>@db/astra")
        #expect(
            StateStores.redactedURL("postgresql:///astra?host=/run/pg&password=s3cret")
                == "postgresql:///astra?host=/run/pg&password=<redacted>")
        #expect(StateStores.redactedURL("sqlite:/a/b") == "sqlite:/a/b")
        #expect(try await StateStores.open("memory").location == "memory")
        await #expect(throws: StateStoreError.self) { try await StateStores.open("redis://x") }
        await #expect(throws: StateStoreError.self) { try await StateStores.open("sqlite:") }
        // Nothing listens there: a database that cannot be reached now is `.failed`, not refused.
        do {
            _ = try await StateStores.open("postgresql://gw:s3cret@/astra?host=/nonexistent-astra&connect_timeout=2")
            Issue.record("opened a store with no server")
        } catch {
            #expect(error.kind == .failed)
            #expect(!error.message.contains("s3cret"), "the password in the error")
        }
    }

    /// Written behind, coalesced, and never reordered against a durable commit: a queued delete
    /// of a registration must not land after a newer registration committed for the phone.
    @Test func writeBehindCoalescesAndKeepsOrder() async throws {
        let store = MemoryStateStore()
        let writer = StateWriter(store: store)
        for milli in stride(from: Int64(5_000), through: 1_000, by: -1_000) {
            writer.enqueue(.saveRateBucket(endpoint: "1001", milli: milli, atWallMs: milli))
        }
        writer.enqueue(.deleteRegistration(endpoint: "1001", source: .api))
        try await writer.commit([.saveRegistration(Self.registration("1001"))])
        writer.enqueue(.saveBackoff(token: Self.token, untilWallMs: 5))
        await writer.flush()
        let snapshot = try await store.load()
        #expect(snapshot.registrations == [Self.registration("1001")])
        #expect(snapshot.rateBuckets == [StateRateBucket(endpoint: "1001", milli: 1_000, atWallMs: 1_000)])
        #expect(snapshot.backoffs == [StateBackoff(token: Self.token, untilWallMs: 5)])
        #expect(writer.counts.failures == 0)
    }
}
