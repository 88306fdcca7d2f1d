import CPostgreSQL
import Glibc

/// One libpq connection and its prepared statements: the thin layer over the C API that
/// ``PostgreSQLStateStore`` speaks through. Not thread-safe: it lives inside one actor.
///
/// Values are always sent as parameters of a prepared statement (`PQprepare` once per
/// connection, then `PQexecPrepared`), never spliced into SQL text. Errors carry only the
/// server's primary message and SQLSTATE — never its DETAIL, which for a constraint violation
/// quotes the row (a push token) — and libpq's connection messages, which name the host and
/// user but never the password.
final class PostgreSQLConnection {
    private var handle: OpaquePointer?
    /// SQL text → the name it was prepared under on this connection.
    private var prepared: [String: String] = [:]

    /// libpq settings the connection URI may override: a start that does not hang on a dead
    /// host (`connect_timeout`), a write that does not hang on a dead network (`tcp_user_timeout`,
    /// keepalives), and a name in `pg_stat_activity`.
    static let defaults: [(String, String)] = [
        ("connect_timeout", "5"), ("tcp_user_timeout", "10000"), ("keepalives_idle", "30"),
        ("application_name", "astra-wakegw"),
    ]

    /// Connects to `uri` (a libpq connection URI); `redacted` is what errors may show of it.
    init(uri: String, redacted: String) throws(StateStoreError) {
        // The URI is expanded in place of `dbname`; keywords before it are defaults it overrides.
        let keywords = Self.defaults.map(\.0) + ["dbname"]
        let values = Self.defaults.map(\.1) + [uri]
        let conn = Self.withCStrings(keywords) { k in
            Self.withCStrings(values) { v in PQconnectdbParams(k, v, 1) }
        }
        guard let conn else { throw StateStoreError(.failed, "PostgreSQL \(redacted): out of memory") }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = Self.oneLine(String(cString: PQerrorMessage(conn)))
            PQfinish(conn)
            throw StateStoreError(.failed, "PostgreSQL \(redacted): cannot connect (\(message))")
        }
        // libpq prints the server's notices (`relation … already exists, skipping`) to stderr
        // itself, as raw lines among the gateway's own diagnostics: none is needed, all dropped.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        handle = conn
    }

    deinit { close() }

    /// Whether the connection is still up as far as libpq knows (it learns of a loss on use).
    var isUp: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared.removeAll()
    }

    /// Runs `sql` without parameters (DDL of a migration, BEGIN, COMMIT, SET).
    func exec(_ sql: String) throws(StateStoreError) {
        guard let handle else { throw StateStoreError(.failed, "PostgreSQL connection closed") }
        try check(PQexec(handle, sql)).clear()
    }

    /// The rows of the prepared `sql` with `parameters` (text format; nil is NULL), each as its
    /// columns' text (nil for NULL).
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws(StateStoreError) -> [[String?]] {
        guard let handle else { throw StateStoreError(.failed, "PostgreSQL connection closed") }
        let name = try statement(sql, parameterCount: parameters.count)
        let raw = Self.withOptionalCStrings(parameters) { values in
            PQexecPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
        }
        let result = try check(raw)
        defer { result.clear() }
        return result.rows
    }

    /// The name `sql` is prepared under, preparing it on first use.
    private func statement(_ sql: String, parameterCount: Int) throws(StateStoreError) -> String {
        if let name = prepared[sql] { return name }
        guard let handle else { throw StateStoreError(.failed, "PostgreSQL connection closed") }
        let name = "astra_\(prepared.count + 1)"
        try check(PQprepare(handle, name, sql, Int32(parameterCount), nil)).clear()
        prepared[sql] = name
        return name
    }

    /// `raw` when it succeeded; else its error, and the result freed.
    private func check(_ raw: OpaquePointer?) throws(StateStoreError) -> Result {
        guard let raw else {
            let message = handle.map { Self.oneLine(String(cString: PQerrorMessage($0))) } ?? "no connection"
            throw StateStoreError(.failed, "PostgreSQL: \(message)")
        }
        let status = PQresultStatus(raw)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let primary = PQresultErrorField(raw, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let state = PQresultErrorField(raw, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let connection = handle.map { String(cString: PQerrorMessage($0)) } ?? ""
            PQclear(raw)
            let message = Self.oneLine(primary ?? connection)
            throw StateStoreError(
                .failed, "PostgreSQL: \(message.isEmpty ? "connection lost" : message)" + (state.map { " (\($0))" } ?? ""))
        }
        return Result(raw: raw)
    }

    /// libpq's messages end in a newline and may hold several lines: one line for stderr.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters() }.filter { !$0.isEmpty }
            .joined(separator: "; ")
    }

    /// A query result; ``clear()`` frees it.
    struct Result {
        let raw: OpaquePointer

        var rows: [[String?]] {
            let count = PQntuples(raw)
            let columns = PQnfields(raw)
            return (0..<count).map { row in
                (0..<columns).map { column in
                    PQgetisnull(raw, row, column) == 1 ? nil : String(cString: PQgetvalue(raw, row, column))
                }
            }
        }

        func clear() { PQclear(raw) }
    }

    /// `strings` as a C array of C strings for the duration of `body`.
    static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        withOptionalCStrings(strings.map { $0 }, body)
    }

    static func withOptionalCStrings<R>(
        _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
    ) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        var pointers = copies.map { $0.map { UnsafePointer($0) } }
        pointers.append(nil)  // PQconnectdbParams reads the keyword array up to a NULL
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
