import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one way a process is started: posix_spawn with an empty signal mask and every signal's
/// disposition reset to its default, and no descriptor but the three standard streams.
///
/// - Signals: a Swift parent's threads (Dispatch's, the test runner's) block most signals, and
///   a child inherits the mask: a peer told to stop with SIGINT or SIGTERM would never see it.
/// - Descriptors: a child gets exactly its stdin, stdout and stderr as ``Stream`` says; every
///   other descriptor is closed in the child after the streams are in place
///   (`posix_spawn_file_actions_addclosefrom_np(3)` from 3, after the dup2s onto 0, 1, 2; glibc
///   2.34). Close-on-exec alone is not enough: a descriptor a library user or a C library opened
///   without it (a listening socket, a TLS connection, an open APNs key file) would otherwise
///   reach every peer and client process live mode or a test starts, which may keep a port
///   bound after we closed it, hold a connection open, or read a key (decisions D49). A stream
///   given as ``Stream/descriptor(_:)`` is dup2'ed onto its standard number first, so nothing
///   above 2 is ever needed.
///
/// Used by live mode's peers and client processes (PushKitLive), the test helpers that run
/// tools and peers (AstraTestSupport, the Kamailio suite).
public enum ProcessSpawn {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A file opened for reading (stdin) or for writing: created 0600 (a log may name users
        /// and numbers), truncated or appended to.
        case file(String, truncate: Bool)
        /// A descriptor of ours (one end of a socketpair), dup2'ed onto the stream's number; the
        /// child has it there only (its own number is closed with every other one above 2).
        case descriptor(Int32)
        /// The same as the child's standard output (stderr only).
        case standardOutput
        /// Ours.
        case inherit
    }

    /// posix_spawn's error number, with the program's name.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let program: String
        public let code: Int32
        public var description: String { "cannot start \(program): \(String(cString: strerror(code)))" }
    }

    /// Starts `argv` (argv[0] a path) with exactly `environment`; `ownGroup` makes the child
    /// lead a process group of its own (signal `-pid` to reach what it starts).
    public static func spawn(
        _ argv: [String], environment: [String: String], stdin: Stream = .null, stdout: Stream, stderr: Stream,
        ownGroup: Bool = false
    ) throws(Failure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path, let truncate):
                let flags = fd == 0 ? O_RDONLY : O_WRONLY | O_CREAT | (truncate ? O_TRUNC : O_APPEND)
                posix_spawn_file_actions_addopen(&actions, fd, path, flags, 0o600)
            case .descriptor(let own): posix_spawn_file_actions_adddup2(&actions, own, fd)
            case .standardOutput: posix_spawn_file_actions_adddup2(&actions, 1, fd)
            case .inherit: break
            }
        }
        // Last, so that the dup2s above have read their sources: nothing above 2 reaches the child.
        let closing = posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        guard closing == 0 else { throw Failure(program: argv[0], code: closing) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for arg in cArgs { free(arg) }
            for entry in cEnv { free(entry) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, cEnv)
        guard rc == 0 else { throw Failure(program: argv[0], code: rc) }
        return pid
    }

    /// A `waitpid` status as a shell reports it: `exit N` → N, a signal → 128 + signal.
    public static func exitStatus(_ raw: Int32) -> Int32 { raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F) }
}
