import SIPCore

/// Where astra-wakegw keeps what must outlive the process: push registrations (token API and
/// RFC 8599), the per-user push buckets and the provider back-off of each token
/// (docs/wake-gateway.md "State"). Held calls are not here: they last seconds, live in memory,
/// and a stopping gateway answers them.
///
/// The gateway keeps its working copy in memory (``PushTokenStore``: a push reads no disk) and
/// writes through a store: a change the phone sees acknowledged (an HTTP 200 on the token API) is
/// committed before the answer; limits are written behind, in batches (``StateWriteBehind``).
public protocol StateStore: Sendable {
    /// `memory`, `sqlite:/path`, `postgresql://host/db` (never a password).
    var location: String { get }
    /// Everything stored, for a gateway that starts.
    func load() async throws(StateStoreError) -> StateSnapshot
    /// Applies `changes` in one transaction, durably: when this returns, a crash or a power cut
    /// keeps them; when it throws, none was applied.
    func commit(_ changes: [StateChange]) async throws(StateStoreError)
    /// Closes the store; later calls throw.
    func close() async
    /// True when other gateways write the same store (PostgreSQL): the gateway then reads a
    /// line's registrations back (``registrations(endpoint:)``) before an INVITE or a token
    /// request uses them, instead of trusting the copy it loaded at start.
    var isShared: Bool { get }
    /// `endpoint`'s registrations as stored now.
    func registrations(endpoint: String) async throws(StateStoreError) -> [PushRegistration]
}

extension StateStore {
    /// One gateway per store (memory, an SQLite file under `flock`): its working copy is the truth.
    public var isShared: Bool { false }

    public func registrations(endpoint: String) async throws(StateStoreError) -> [PushRegistration] {
        try await load().registrations.filter { $0.endpoint == endpoint }
    }
}

/// One write to the state.
public enum StateChange: Sendable, Hashable {
    /// Insert or replace the registration of (`endpoint`, `source`).
    case saveRegistration(PushRegistration)
    case deleteRegistration(endpoint: String, source: PushRegistration.Source)
    /// A user's push bucket: milli-tokens left at wall-clock `atWallMs` (``PushRateLimiter``).
    case saveRateBucket(endpoint: String, milli: Int64, atWallMs: Int64)
    /// A bucket that refilled completely (it equals a fresh one).
    case deleteRateBucket(endpoint: String)
    /// No push to `token` before wall-clock `untilWallMs` (APNs/FCM 429).
    case saveBackoff(token: String, untilWallMs: Int64)
    case deleteBackoff(token: String)

    /// What coalesces in a write-behind batch: the later change of one key replaces the earlier.
    var key: String {
        switch self {
        case .saveRegistration(let r): "r\u{1}\(r.source.rawValue)\u{1}\(r.endpoint)"
        case .deleteRegistration(let endpoint, let source): "r\u{1}\(source.rawValue)\u{1}\(endpoint)"
        case .saveRateBucket(let endpoint, _, _), .deleteRateBucket(let endpoint): "b\u{1}\(endpoint)"
        case .saveBackoff(let token, _), .deleteBackoff(let token): "o\u{1}\(token)"
        }
    }
}

/// What a store holds, as a starting gateway reads it.
public struct StateSnapshot: Sendable, Hashable {
    public var registrations: [PushRegistration] = []
    /// (endpoint, milli-tokens, wall-clock ms they were counted).
    public var rateBuckets: [StateRateBucket] = []
    /// (token, wall-clock ms until which it is paused).
    public var backoffs: [StateBackoff] = []

    public init() {}
}

public struct StateRateBucket: Sendable, Hashable {
    public var endpoint: String
    public var milli: Int64
    public var atWallMs: Int64
}

public struct StateBackoff: Sendable, Hashable {
    public var token: String
    public var untilWallMs: Int64
}

/// A store that cannot be used: unreadable, corrupt, of a newer schema, or failing a write. Its
/// text is one line for stderr and never holds a token or a password.
public struct StateStoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The store given cannot be used as it is (bad URL, not our file, corrupt, newer schema):
        /// an operator's decision, exit 64 at start.
        case refused
        /// A read or write failed (disk full, I/O, connection lost): the request is answered 503.
        case failed
    }

    public let kind: Kind
    public let message: String
    public var description: String { message }

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// `--state URL` → a store.
public enum StateStores {
    /// The default file name, in `$STATE_DIRECTORY` (systemd's `StateDirectory=`) when set, else
    /// the working directory.
    public static let defaultFileName = "astra-wakegw.sqlite3"

    /// The `sqlite:` location used when `--state` is not given.
    public static func defaultLocation(environment: [String: String]) -> String {
        // systemd may list several directories separated by ':'; the first is ours.
        if let dirs = environment["STATE_DIRECTORY"], let first = dirs.split(separator: ":").first, !first.isEmpty {
            return "sqlite:" + first + "/" + defaultFileName
        }
        return "sqlite:" + defaultFileName
    }

    /// Opens the store `url` names: `memory`, `sqlite:PATH`, or a libpq connection URI
    /// (`postgresql://…`, `postgres://…`). `.refused` is the operator's to fix (exit 64);
    /// `.failed` is a database that cannot be reached now.
    public static func open(_ url: String) async throws(StateStoreError) -> any StateStore {
        if url == "memory" { return MemoryStateStore() }
        if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw StateStoreError(.refused, "--state sqlite: needs a file path (sqlite:PATH)") }
            return try SQLiteStateStore(path: path)
        }
        if url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") {
            return try await PostgreSQLStateStore(url: url)
        }
        throw StateStoreError(
            .refused,
            "--state must be memory, sqlite:PATH or postgresql://…, got '\(StateStores.redactedURL(url))'")
    }

    /// A state URL as logs may show it: through the one redactor (``Redaction``), which replaces
    /// the password of a `scheme://user:password@` URI and a `password=` query parameter.
    public static func redactedURL(_ url: String) -> String {
        Redaction.untrusted(url, limit: 200)
    }
}
