import PushKitEmu

/// `--state postgresql://…` (or `postgres://…`, a libpq connection URI): the state in a
/// PostgreSQL database, shared by N gateways (docs/wake-gateway.md "Two gateways, one database").
///
/// - Durable before the answer: the session runs with `synchronous_commit = on` (whatever the
///   server's default), so ``commit(_:)`` returns only once the server has flushed the commit
///   to its WAL; the token API answers its 200 after that.
/// - The schema of ``SQLiteStateStore`` (the same three tables and migrations), versioned by a `schema_version`
///   table (one row per numbered migration applied). Migrations run in one transaction under an
///   advisory lock, so gateways starting together migrate once. A database whose schema is newer
///   than this gateway knows is refused (exit 64), never touched.
/// - Shared: nothing is cached here. ``isShared`` tells the gateway to read a line's
///   registrations back (``registrations(endpoint:)``) before it uses them for an INVITE or a
///   token request: another gateway may have stored or deleted the token.
/// - A lost connection fails the write it was found on (the phone gets a 503, one `state_error`)
///   and the next use reconnects. A loss found before COMMIT was sent is retried once on a new
///   connection (nothing was applied); a loss during COMMIT is reported, never guessed.
/// - The password in the URI is never shown: ``location`` and every error carry the URI as
///   ``StateStores/redactedURL(_:)`` gives it.
public actor PostgreSQLStateStore: StateStore {
    public nonisolated let location: String
    public nonisolated var isShared: Bool { true }
    private let uri: String
    private var connection: PostgreSQLConnection?
    private var closed = false

    /// The `pg_advisory_xact_lock` key migrations hold ("ASTR", as SQLite's application_id).
    static let migrationLock = "1095980114"

    /// The schema, one migration per version (version N = the first N applied); the tables of
    /// ``SQLiteStateStore/migrations``. Never edit one that shipped: add the next.
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
            updated_at_ms BIGINT NOT NULL,
            PRIMARY KEY (endpoint, source)
        );
        CREATE TABLE push_rate_bucket (
            endpoint TEXT PRIMARY KEY,
            milli BIGINT NOT NULL,
            at_ms BIGINT NOT NULL
        );
        CREATE TABLE provider_backoff (
            token TEXT PRIMARY KEY,
            until_ms BIGINT NOT NULL
        );
        """,
        // 2: sealed push (ADR 0152): the device key, call grant, call key and grant expiry a
        // registration brought; all NULL for a registration with clear pushes.
        """
        ALTER TABLE push_registration ADD COLUMN device_key TEXT, ADD COLUMN call_grant TEXT,
            ADD COLUMN call_key TEXT, ADD COLUMN grant_expires_s BIGINT;
        """,
    ]

    /// Connects to `url` and migrates its schema. A database that cannot be reached throws
    /// `.failed`; one of a newer schema or with tables that are not ours throws `.refused`.
    public init(url: String) async throws(StateStoreError) {
        uri = url
        location = StateStores.redactedURL(url)
        let conn = try Self.connect(url, location)
        try Self.migrate(conn, location)
        connection = conn
    }

    /// A new session with the durability the store promises.
    static func connect(_ uri: String, _ location: String) throws(StateStoreError) -> PostgreSQLConnection {
        let conn = try PostgreSQLConnection(uri: uri, redacted: location)
        try conn.exec("SET synchronous_commit = on")
        return conn
    }

    /// The migrations the database lacks, in one transaction, under the advisory lock.
    static func migrate(_ conn: PostgreSQLConnection, _ location: String) throws(StateStoreError) {
        try conn.exec("BEGIN")
        do throws(StateStoreError) {
            try conn.query("SELECT pg_advisory_xact_lock($1::bigint)", [migrationLock])
            try conn.exec(
                """
                CREATE TABLE IF NOT EXISTS schema_version (
                    version INTEGER PRIMARY KEY,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """)
            let row = try conn.query("SELECT coalesce(max(version), 0) FROM schema_version").first
            let version = Int((row?.first ?? nil) ?? "")
            guard let version else { throw StateStoreError(.refused, "schema_version holds no version") }
            guard version <= migrations.count else {
                throw StateStoreError(
                    .refused,
                    "has schema version \(version), this astra-wakegw knows up to \(migrations.count): "
                        + "run the newer astra-wakegw, or restore a backup")
            }
            for (index, sql) in migrations.enumerated() where index >= version {
                try conn.exec(sql)
                try conn.query("INSERT INTO schema_version (version) VALUES ($1::integer)", [String(index + 1)])
            }
            try conn.exec("COMMIT")
        } catch {
            if conn.isUp { try? conn.exec("ROLLBACK") }
            throw StateStoreError(error.kind == .failed && conn.isUp ? .refused : error.kind, "state \(location) \(error.message)")
        }
    }

    /// The connection, reconnecting when the last one was lost.
    private func live() throws(StateStoreError) -> PostgreSQLConnection {
        guard !closed else { throw StateStoreError(.failed, "state store closed") }
        if let connection, connection.isUp { return connection }
        connection?.close()
        connection = nil
        let conn = try Self.connect(uri, location)
        connection = conn
        return conn
    }

    /// `error` from a use of `conn`: a lost connection is dropped (the next use reconnects) and
    /// said so.
    private func failed(_ error: StateStoreError, _ conn: PostgreSQLConnection) -> StateStoreError {
        guard !conn.isUp else { return error }
        conn.close()
        if connection === conn { connection = nil }
        return StateStoreError(.failed, "\(error.message) (connection lost; the next write reconnects)")
    }

    public func load() async throws(StateStoreError) -> StateSnapshot {
        var snapshot = StateSnapshot()
        snapshot.registrations = try readRegistrations(nil)
        try read(retry: true) { conn throws(StateStoreError) in
            snapshot.rateBuckets = try conn.query("SELECT endpoint, milli, at_ms FROM push_rate_bucket").map { row in
                StateRateBucket(endpoint: row[0] ?? "", milli: Int64(row[1] ?? "") ?? 0, atWallMs: Int64(row[2] ?? "") ?? 0)
            }
            snapshot.backoffs = try conn.query("SELECT token, until_ms FROM provider_backoff").map { row in
                StateBackoff(token: row[0] ?? "", untilWallMs: Int64(row[1] ?? "") ?? 0)
            }
        }
        return snapshot
    }

    /// `endpoint`'s registrations as stored now, whichever gateway wrote them.
    public func registrations(endpoint: String) async throws(StateStoreError) -> [PushRegistration] {
        try readRegistrations(endpoint)
    }

    private func readRegistrations(_ endpoint: String?) throws(StateStoreError) -> [PushRegistration] {
        let columns = """
            SELECT endpoint, source, token, environment, bundle_id, platform, updated_at_ms,
            device_key, call_grant, call_key, grant_expires_s FROM push_registration
            """
        var rows: [[String?]] = []
        try read(retry: true) { conn throws(StateStoreError) in
            if let endpoint {
                rows = try conn.query(columns + " WHERE endpoint = $1", [endpoint])
            } else {
                rows = try conn.query(columns)
            }
        }
        return rows.compactMap { row in
            guard let source = PushRegistration.Source(rawValue: row[1] ?? ""),
                let environment = APNsEnvironment(rawValue: row[3] ?? "")
            else { return nil }
            let sealing = PushSealing.stored(
                deviceKey: row[7], grant: row[8], callKey: row[9], grantExpiresAt: row[10].flatMap { Int64($0) })
            return PushRegistration(
                endpoint: row[0] ?? "", token: row[2] ?? "", environment: environment, bundleID: row[4] ?? "",
                platform: row[5] ?? "", updatedAt: Int64(row[6] ?? "") ?? 0, source: source, sealing: sealing)
        }
    }

    /// Runs `body` on the live connection; when it fails because the connection was lost and
    /// `retry` allows, once more on a new one.
    private func read(
        retry: Bool, _ body: (PostgreSQLConnection) throws(StateStoreError) -> Void
    ) throws(StateStoreError) {
        let conn = try live()
        do {
            try body(conn)
        } catch {
            let reported = failed(error, conn)
            guard retry, connection == nil else { throw reported }
            try read(retry: false, body)
        }
    }

    public func commit(_ changes: [StateChange]) async throws(StateStoreError) {
        guard !changes.isEmpty else { return }
        try transaction(changes, retry: true)
    }

    private func transaction(_ changes: [StateChange], retry: Bool) throws(StateStoreError) {
        let conn = try live()
        var commitSent = false
        do {
            try conn.exec("BEGIN")
            for change in changes { try apply(change, conn) }
            commitSent = true
            try conn.exec("COMMIT")
        } catch {
            if conn.isUp { try? conn.exec("ROLLBACK") }
            let reported = failed(error, conn)
            // Lost before COMMIT left: the server rolled the transaction back; try a new session.
            guard retry, !commitSent, connection == nil else { throw reported }
            try transaction(changes, retry: false)
        }
    }

    private func apply(_ change: StateChange, _ conn: PostgreSQLConnection) throws(StateStoreError) {
        switch change {
        case .saveRegistration(let r):
            try conn.query(
                """
                INSERT INTO push_registration
                (endpoint, source, token, environment, bundle_id, platform, updated_at_ms,
                device_key, call_grant, call_key, grant_expires_s)
                VALUES ($1, $2, $3, $4, $5, $6, $7::bigint, $8, $9, $10, $11::bigint)
                ON CONFLICT (endpoint, source) DO UPDATE SET token = EXCLUDED.token,
                environment = EXCLUDED.environment, bundle_id = EXCLUDED.bundle_id,
                platform = EXCLUDED.platform, updated_at_ms = EXCLUDED.updated_at_ms,
                device_key = EXCLUDED.device_key, call_grant = EXCLUDED.call_grant,
                call_key = EXCLUDED.call_key, grant_expires_s = EXCLUDED.grant_expires_s
                """,
                [
                    r.endpoint, r.source.rawValue, r.token, r.environment.rawValue, r.bundleID, r.platform,
                    String(r.updatedAt), r.sealing?.deviceKey, r.sealing?.grant, r.sealing?.callKeyText,
                    r.sealing.map { String($0.grantExpiresAt) },
                ])
        case .deleteRegistration(let endpoint, let source):
            try conn.query("DELETE FROM push_registration WHERE endpoint = $1 AND source = $2", [endpoint, source.rawValue])
        case .saveRateBucket(let endpoint, let milli, let at):
            try conn.query(
                """
                INSERT INTO push_rate_bucket (endpoint, milli, at_ms) VALUES ($1, $2::bigint, $3::bigint)
                ON CONFLICT (endpoint) DO UPDATE SET milli = EXCLUDED.milli, at_ms = EXCLUDED.at_ms
                """, [endpoint, String(milli), String(at)])
        case .deleteRateBucket(let endpoint):
            try conn.query("DELETE FROM push_rate_bucket WHERE endpoint = $1", [endpoint])
        case .saveBackoff(let token, let until):
            try conn.query(
                """
                INSERT INTO provider_backoff (token, until_ms) VALUES ($1, $2::bigint)
                ON CONFLICT (token) DO UPDATE SET until_ms = EXCLUDED.until_ms
                """, [token, String(until)])
        case .deleteBackoff(let token):
            try conn.query("DELETE FROM provider_backoff WHERE token = $1", [token])
        }
    }

    /// A setting of the store's session (`synchronous_commit` must read `on`).
    func setting(_ name: String) throws(StateStoreError) -> String? {
        try live().query("SELECT current_setting($1)", [name]).first?.first ?? nil
    }

    public func close() async {
        closed = true
        connection?.close()
        connection = nil
    }
}
