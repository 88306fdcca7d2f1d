import Foundation
import Glibc

/// A throw-away PostgreSQL cluster for one test (Debian's PostgreSQL 15 server binaries):
/// `initdb --no-sync` (its files need not reach the disk: the cluster dies with the test) into a
/// fresh temporary directory, `pg_ctl -w start` with no TCP listener at all
/// (`listen_addresses=''`), its Unix socket in that directory and `fsync` on (commits are as
/// durable as in production), password (SCRAM) logins only; ``stop(remove:)`` — `pg_ctl stop -m
/// immediate` — and the directory removed.
///
/// Use it through ``with(_:)``, which stops the server and removes the directory whatever the
/// test does (a throw, a failed expectation, a cancelled or timed-out test). A test process that
/// dies outright (a crash, the CI phase limit's SIGKILL) cannot clean up: the directory names its
/// owner's pid, and the next ``start()`` on the machine stops and removes every cluster whose
/// owner is gone.
///
/// `initdb` refuses to run as root: under root (the test container) the directory is given to
/// the `postgres` account the Debian package creates and the server programs run as it
/// (`runuser -u postgres --`); under any other user they run as that user. The superuser's
/// password is random per cluster; ``url(database:scheme:)`` holds it, so never print a URL.
public final class PostgreSQLCluster: @unchecked Sendable {
    /// Where Debian installs the server programs.
    public static let binDirectory = "/usr/lib/postgresql/15/bin"

    /// Why no cluster can start here (the programs are absent), or nil. A test skips on it.
    public static var unavailable: String? {
        for program in ["initdb", "pg_ctl", "postgres", "psql"]
        where !FileManager.default.isExecutableFile(atPath: binDirectory + "/" + program) {
            return "PostgreSQL server programs not installed (\(binDirectory)/\(program); Debian postgresql-15)"
        }
        if getuid() == 0 && getpwnam("postgres") == nil { return "running as root and no 'postgres' account for initdb" }
        return nil
    }

    /// The directory holding the data (`data/`), the socket and the server log.
    public let directory: String
    /// The socket's port number (only its file name: nothing listens on TCP).
    public var port: UInt16 { Self.socketPort }
    static let socketPort: UInt16 = 5432
    /// The superuser's password (random; a test checks that no message holds it — never print it).
    public let password: String

    /// The libpq connection URI of `database` as the superuser, over the Unix socket.
    public func url(database: String = "postgres", scheme: String = "postgresql") -> String {
        "\(scheme)://postgres:\(password)@/\(database)?host=\(directory)&port=\(port)"
    }

    /// The server log so far (for a failed test's message; it holds no password).
    public var log: String { (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "" }

    private init(directory: String, password: String) {
        self.directory = directory
        self.password = password
    }

    /// Where clusters are made: under root the `postgres` account must reach the directory, so
    /// `/tmp` (a `TMPDIR` under `/root` would not be), else the user's temporary directory.
    static var base: String { getuid() == 0 ? "/tmp/" : NSTemporaryDirectory() }
    static let prefix = "astra-pg-"

    /// A started cluster, `body` run on it, then the server stopped and its directory removed —
    /// also when `body` throws or the test is cancelled (the stop runs child processes of its own,
    /// which a cancelled task still waits for).
    public static func with<R>(_ body: (PostgreSQLCluster) async throws -> R) async throws -> R {
        let cluster = try await start()
        let result: R
        do {
            result = try await body(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
        return result
    }

    /// A new cluster, started; throws with initdb's or the server's own words when it cannot.
    /// Prefer ``with(_:)``: whoever calls this must call ``stop(remove:)``.
    public static func start() async throws -> PostgreSQLCluster {
        if let unavailable { throw Failure(description: unavailable) }
        await reapOrphans()
        var template = Array((base + prefix + "XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        let password = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let cluster = PostgreSQLCluster(directory: directory, password: password)
        do {
            // Whose cluster this is: a later start removes it once that process is gone.
            guard FileManager.default.createFile(atPath: directory + "/owner", contents: Data("\(getpid())\n".utf8)) else {
                throw Failure(description: "cannot write \(directory)/owner")
            }
            let pwfile = directory + "/pwfile"
            guard FileManager.default.createFile(atPath: pwfile, contents: Data((password + "\n").utf8)) else {
                throw Failure(description: "cannot write \(pwfile)")
            }
            if getuid() == 0, let account = getpwnam("postgres") {
                for path in [directory, pwfile] { chown(path, account.pointee.pw_uid, account.pointee.pw_gid) }
            }
            try await cluster.server(
                "initdb", ["-D", directory + "/data", "-U", "postgres", "--pwfile", pwfile, "--auth", "scram-sha-256",
                           "-E", "UTF8", "--locale", "C", "--no-instructions", "--no-sync"])
            unlink(pwfile)
            try await cluster.startServer()
        } catch {
            await cluster.stop()
            throw error
        }
        return cluster
    }

    /// `pg_ctl start` on the data directory: no TCP, the socket in the cluster's directory, fsync
    /// on, and small (several clusters may run at once beside the other tests).
    private func startServer() async throws {
        let options =
            "-c listen_addresses='' -k \(directory) -p \(port) -c fsync=on -c max_connections=50"
            + " -c shared_buffers=16MB -c dynamic_shared_memory_type=mmap"
        try await server(
            "pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-o", options, "-w", "-t", "60", "start"])
    }

    /// Stops and removes the clusters left by test processes that died before their cleanup.
    static func reapOrphans() async {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        for name in names where name.hasPrefix(prefix) {
            let directory = base + name
            guard let text = try? String(contentsOfFile: directory + "/owner", encoding: .utf8),
                let owner = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                kill(owner, 0) != 0 && errno == ESRCH
            else { continue }
            await PostgreSQLCluster(directory: directory, password: "").stop()
        }
    }

    /// Stops the server at once (`-m immediate`: a crash as far as the data is concerned, which
    /// a restarted server recovers from its WAL) and, when `remove`, deletes the directory.
    public func stop(remove: Bool = true) async {
        if FileManager.default.fileExists(atPath: directory + "/data/postmaster.pid") {
            _ = try? await server("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "-t", "30", "stop"])
        }
        if remove { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Starts the stopped server again on the same data (a database that came back).
    public func restart() async throws {
        try await startServer()
    }

    /// Runs `sql` with psql as the superuser on `database`; its output rows (`-At`: unaligned,
    /// tuples only), or a throw with psql's error.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") async throws -> String {
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: Self.binDirectory + "/psql"),
            ["-X", "-At", "-v", "ON_ERROR_STOP=1", "-h", directory, "-p", String(port), "-U", "postgres", "-d", database,
             "-c", sql],
            environment: ["PGPASSWORD": password])
        guard result.status == 0 else { throw Failure(description: "psql exited \(result.status): \(result.stderr)") }
        return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A new empty database, for one test's gateways.
    public func createDatabase(_ name: String) async throws {
        try await psql("CREATE DATABASE \"\(name)\"")
    }

    /// A server program, as the `postgres` account when we are root.
    private func server(_ program: String, _ arguments: [String]) async throws {
        let path = Self.binDirectory + "/" + program
        let result =
            getuid() == 0
            ? try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", path] + arguments, directory: URL(fileURLWithPath: "/"))
            : try await ChildProcess.run(URL(fileURLWithPath: path), arguments)
        guard result.status == 0 else {
            throw Failure(description: "\(program) exited \(result.status): \(result.stderr) \(result.text) \(log)")
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }
}
