import CSQLite
import Glibc
import PushKitEmu

/// `--state sqlite:PATH`: the state in one SQLite file, the default (docs/wake-gateway.md "State").
///
/// - Durable before the answer: WAL journal with `synchronous=FULL`, so a committed transaction
///   is on disk when ``commit(_:)`` returns — a `kill -9` or a power cut keeps it (in WAL mode
///   `NORMAL` would survive a crash of the process but not of the machine).
/// - Ours or nothing: the file carries an `application_id`; its schema version is
///   `PRAGMA user_version`, moved forward by the numbered ``migrations``. A file that is not an
///   SQLite database, fails `quick_check`, belongs to another program or has a newer schema is
///   refused with one line (exit 64 at start) and left as it is, never replaced.
/// - Private: created mode 0600 (SQLite gives the `-wal` and `-shm` files the same mode), and
///   tightened to 0600 if it was looser.
/// - One gateway per file: an `flock` on the file, held while the store is open (SQLite's own
///   locks are POSIX record locks, which `flock` does not touch, so an online backup with the
///   sqlite3 shell still works). Two gateways share state through PostgreSQL, not one file.
public actor SQLiteStateStore: StateStore {
    public nonisolated let location: String
    private let db: SQLiteDatabase
    private let lockFD: Int32
    private var lockHeld = true

    /// "ASTR" — marks the file as astra-wakegw state.
    static let applicationID: Int32 = 0x4153_5452

    /// The schema, one migration per version (version N = the first N applied). Never edit one
    /// that shipped: add the next.
    static let migrations: [String] = [
        // 1: push registrations (one per endpoint and source), push buckets, provider back-off.
        """
        CREATE TABLE push_registration (
            endpoint TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('api', 'rfc8599')),
            token TEXT NOT NULL,
            environment TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            platform TEXT NOT NULL,
            updated_at_ms INTEGER NOT NULL,
            PRIMARY KEY (endpoint, source)
        ) WITHOUT ROWID;
        CREATE TABLE push_rate_bucket (
            endpoint TEXT PRIMARY KEY,
            milli INTEGER NOT NULL,
            at_ms INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE provider_backoff (
            token TEXT PRIMARY KEY,
            until_ms INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // 2: sealed push (ADR 0152): the device key, call grant, call key and grant expiry a
        // registration brought; all NULL for a registration with clear pushes.
        """
        ALTER TABLE push_registration ADD COLUMN device_key TEXT;
        ALTER TABLE push_registration ADD COLUMN call_grant TEXT;
        ALTER TABLE push_registration ADD COLUMN call_key TEXT;
        ALTER TABLE push_registration ADD COLUMN grant_expires_s INTEGER;
        """,
    ]

    /// Opens (creating when absent) and migrates the file at `path`.
    public init(path: String) throws(StateStoreError) {
        location = "sqlite:" + path
        var info = stat()
        let exists = stat(path, &info) == 0
        if exists && (info.st_mode & S_IFMT) != S_IFREG {
            throw StateStoreError(.refused, "state file \(path): not a regular file")
        }
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StateStoreError(.refused, "state file \(path): cannot open (\(String(cString: strerror(errno))))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(fd)
            throw StateStoreError(.refused, "state file \(path): in use by another astra-wakegw (one gateway per file)")
        }
        lockFD = fd
        do {
            db = try SQLiteDatabase(path: path)
            try Self.verify(db, path: path)
            try Self.migrate(db, path: path)
        } catch {
            Glibc.close(fd)
            throw error
        }
        if exists && info.st_mode & 0o077 != 0 { fchmod(fd, 0o600) }
    }

    deinit {
        // The connection closes in SQLiteDatabase's own deinit.
        if lockHeld { Self.release(lockFD) }
    }

    /// Unlocks before closing. `close` alone frees the lock only when the last descriptor of the
    /// open file description goes; a process spawned by another thread holds a copy until its
    /// `exec` (O_CLOEXEC acts at exec, not at fork), and in that window a `close` without
    /// `LOCK_UN` left the file locked for the next gateway (flock(2): the lock belongs to the
    /// open file description, and `LOCK_UN` through any descriptor of it releases it).
    private static func release(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
        Glibc.close(fd)
    }

    /// Refuses a file that is not ours as it is, before anything is written to it.
    static func verify(_ db: SQLiteDatabase, path: String) throws(StateStoreError) {
        let check: String?
        do {
            check = try db.scalar("PRAGMA quick_check")
        } catch {
            let what = db.lastCode == SQLITE_NOTADB ? "is not an SQLite database" : "is corrupt"
            throw StateStoreError(
                .refused, "state file \(path) \(what) (\(error.message)); restore a backup or move it away")
        }
        guard check == "ok" else {
            throw StateStoreError(
                .refused,
                "state file \(path) is corrupt (quick_check: \(check ?? "no answer")); restore a backup or move it away")
        }
        let application = Int32(try db.scalar("PRAGMA application_id") ?? "") ?? 0
        let version = Int(try db.scalar("PRAGMA user_version") ?? "") ?? 0
        let tables = Int(try db.scalar("SELECT count(*) FROM sqlite_schema") ?? "") ?? 0
        if application == 0 && version == 0 && tables == 0 { return }  // new and empty
        guard application == applicationID else {
            throw StateStoreError(.refused, "state file \(path) is an SQLite database of another program; not touching it")
        }
        guard version <= migrations.count else {
            throw StateStoreError(
                .refused,
                "state file \(path) has schema version \(version), this astra-wakegw knows up to \(migrations.count): "
                    + "run the newer astra-wakegw, or restore a backup")
        }
    }

    /// WAL, full sync, then the migrations the file lacks, each in its own transaction.
    static func migrate(_ db: SQLiteDatabase, path: String) throws(StateStoreError) {
        do throws(StateStoreError) {
            guard try db.scalar("PRAGMA journal_mode=WAL") == "wal" else {
                throw StateStoreError(.refused, "state file \(path): WAL journal refused by the file system")
            }
            try db.exec("PRAGMA synchronous=FULL")
            let version = Int(try db.scalar("PRAGMA user_version") ?? "") ?? 0
            for (index, sql) in migrations.enumerated() where index >= version {
                try db.exec("BEGIN IMMEDIATE")
                do throws(StateStoreError) {
                    try db.exec(sql)
                    try db.exec("PRAGMA application_id=\(applicationID)")
                    try db.exec("PRAGMA user_version=\(index + 1)")
                    try db.exec("COMMIT")
                } catch {
                    try? db.exec("ROLLBACK")
                    throw error
                }
            }
        } catch {
            throw StateStoreError(.refused, "state file \(path): \(error.message)")
        }
    }

    public func load() async throws(StateStoreError) -> StateSnapshot {
        var snapshot = StateSnapshot()
        try db.run(
            """
            SELECT endpoint, source, token, environment, bundle_id, platform, updated_at_ms,
            device_key, call_grant, call_key, grant_expires_s FROM push_registration
            """, []
        ) { row in
            let text = { (column: Int32) in sqlite3_column_text(row, column).map { String(cString: $0) } ?? "" }
            guard let source = PushRegistration.Source(rawValue: text(1)),
                let environment = APNsEnvironment(rawValue: text(3))
            else { return }
            let sealing = PushSealing.stored(
                deviceKey: text(7), grant: text(8), callKey: text(9), grantExpiresAt: sqlite3_column_int64(row, 10))
            snapshot.registrations.append(
                PushRegistration(
                    endpoint: text(0), token: text(2), environment: environment, bundleID: text(4), platform: text(5),
                    updatedAt: sqlite3_column_int64(row, 6), source: source, sealing: sealing))
        }
        try db.run("SELECT endpoint, milli, at_ms FROM push_rate_bucket", []) { row in
            snapshot.rateBuckets.append(
                StateRateBucket(
                    endpoint: String(cString: sqlite3_column_text(row, 0)), milli: sqlite3_column_int64(row, 1),
                    atWallMs: sqlite3_column_int64(row, 2)))
        }
        try db.run("SELECT token, until_ms FROM provider_backoff", []) { row in
            snapshot.backoffs.append(
                StateBackoff(token: String(cString: sqlite3_column_text(row, 0)), untilWallMs: sqlite3_column_int64(row, 1)))
        }
        return snapshot
    }

    public func commit(_ changes: [StateChange]) async throws(StateStoreError) {
        guard !changes.isEmpty else { return }
        try db.exec("BEGIN IMMEDIATE")
        do {
            for change in changes { try apply(change) }
            try db.exec("COMMIT")
        } catch {
            try? db.exec("ROLLBACK")
            throw error
        }
    }

    private func apply(_ change: StateChange) throws(StateStoreError) {
        switch change {
        case .saveRegistration(let r):
            try db.run(
                """
                INSERT OR REPLACE INTO push_registration
                (endpoint, source, token, environment, bundle_id, platform, updated_at_ms,
                device_key, call_grant, call_key, grant_expires_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(r.endpoint), .text(r.source.rawValue), .text(r.token), .text(r.environment.rawValue),
                    .text(r.bundleID), .text(r.platform), .int(r.updatedAt),
                    r.sealing.map { .text($0.deviceKey) } ?? .null, r.sealing.map { .text($0.grant) } ?? .null,
                    r.sealing.map { .text($0.callKeyText) } ?? .null, r.sealing.map { .int($0.grantExpiresAt) } ?? .null,
                ])
        case .deleteRegistration(let endpoint, let source):
            try db.run(
                "DELETE FROM push_registration WHERE endpoint = ? AND source = ?", [.text(endpoint), .text(source.rawValue)])
        case .saveRateBucket(let endpoint, let milli, let at):
            try db.run(
                "INSERT OR REPLACE INTO push_rate_bucket (endpoint, milli, at_ms) VALUES (?, ?, ?)",
                [.text(endpoint), .int(milli), .int(at)])
        case .deleteRateBucket(let endpoint):
            try db.run("DELETE FROM push_rate_bucket WHERE endpoint = ?", [.text(endpoint)])
        case .saveBackoff(let token, let until):
            try db.run(
                "INSERT OR REPLACE INTO provider_backoff (token, until_ms) VALUES (?, ?)", [.text(token), .int(until)])
        case .deleteBackoff(let token):
            try db.run("DELETE FROM provider_backoff WHERE token = ?", [.text(token)])
        }
    }

    /// Closes the connection and lets go of the file (another gateway may open it now).
    public func close() async {
        db.close()
        if lockHeld { Self.release(lockFD) }
        lockHeld = false
    }
}
