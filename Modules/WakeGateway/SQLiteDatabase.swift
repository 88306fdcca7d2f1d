import CSQLite

/// One SQLite connection and its prepared statements: the thin layer over the C API that
/// ``SQLiteStateStore`` speaks through. Not thread-safe (opened `SQLITE_OPEN_NOMUTEX`): it lives
/// inside one actor. Errors carry SQLite's message, which never holds a bound value (tokens are
/// bound, never spliced into SQL text).
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// The last error's primary result code (`SQLITE_NOTADB`, `SQLITE_CORRUPT`, …).
    private(set) var lastCode: Int32 = SQLITE_OK

    /// Opens an existing file read-write (never creates it: the caller made it with mode 0600).
    init(path: String) throws(StateStoreError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw StateStoreError(.refused, "state file \(path): cannot open (\(message))")
        }
        handle = db
        // A second connection (a backup taken with the sqlite3 shell) may hold the lock briefly.
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit { close() }

    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs `sql` (one or more statements without parameters).
    func exec(_ sql: String) throws(StateStoreError) {
        guard let handle else { throw StateStoreError(.failed, "state store closed") }
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// The rows of `sql` with `bindings`, each as its columns' text (nil for NULL).
    func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(StateStoreError) -> [[String?]] {
        var rows: [[String?]] = []
        try run(sql, bindings) { statement in
            let count = sqlite3_column_count(statement)
            rows.append(
                (0..<count).map { column in
                    sqlite3_column_text(statement, column).map { String(cString: $0) }
                })
        }
        return rows
    }

    /// The first column of the first row of `sql`, as text.
    func scalar(_ sql: String) throws(StateStoreError) -> String? {
        try query(sql).first?.first ?? nil
    }

    /// Runs a cached prepared `sql` with `bindings`; `row` sees each result row.
    func run(
        _ sql: String, _ bindings: [SQLiteValue], row: (OpaquePointer) -> Void = { _ in }
    ) throws(StateStoreError) {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in bindings.enumerated() {
            let position = Int32(index + 1)
            let rc: Int32
            switch value {
            case .int(let number): rc = sqlite3_bind_int64(statement, position, number)
            case .null: rc = sqlite3_bind_null(statement, position)
            case .text(let text):
                rc = text.withCString { astra_sqlite3_bind_text(statement, position, $0, Int32(text.utf8.count)) }
            }
            guard rc == SQLITE_OK else { throw error(rc) }
        }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_ROW {
                row(statement)
            } else if rc == SQLITE_DONE {
                return
            } else {
                throw error(rc)
            }
        }
    }

    private func prepared(_ sql: String) throws(StateStoreError) -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        guard let handle else { throw StateStoreError(.failed, "state store closed") }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc) }
        statements[sql] = statement
        return statement
    }

    private func error(_ rc: Int32) -> StateStoreError {
        lastCode = rc & 0xff
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        return StateStoreError(.failed, message)
    }
}

/// A bound parameter.
enum SQLiteValue {
    case int(Int64)
    case text(String)
    case null
}
