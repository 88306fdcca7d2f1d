import Foundation
import Testing

@testable import SIPTransport

/// Every real-Kamailio suite nests here: `.serialized` runs them one after another, so only
/// one Kamailio (11 processes) starts at a time on the shared 2-core machine.
@Suite("Real Kamailio", .serialized) enum KamailioPeer {}

/// One test Kamailio started through scripts/kamailio.sh on its own random ports and run dir,
/// so suites and concurrent runs never collide. Stop it with ``stop()``.
final class KamailioServer: Sendable {
    let sipPort: UInt16
    let tlsPort: UInt16
    let wsPort: UInt16
    let wssPort: UInt16
    let runDir: String
    /// `IP:PORT` of the wake gateway Kamailio diverts INVITEs to (KAMAILIO_WAKE_GATEWAY), or nil.
    let wakeGateway: String?
    var caFile: String { runDir + "/ca.crt" }

    static let repoRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    private init(base: UInt16, natping: Int, wakeGateway: String? = nil) {
        self.wakeGateway = wakeGateway
        sipPort = base
        tlsPort = base + 1
        wsPort = base + 2
        wssPort = base + 3
        runDir = NSTemporaryDirectory() + "astra-kamailio-test-\(base)-\(getpid())"
    }

    /// Starts a Kamailio; retries on other ports when the chosen ones are busy.
    static func start(natping: Int = 30, wakeGateway: String? = nil) throws -> KamailioServer {
        var lastError = ""
        for _ in 0..<8 {
            let base = UInt16.random(in: 20_000...59_000) / 4 * 4
            let server = KamailioServer(base: base, natping: natping, wakeGateway: wakeGateway)
            let (status, output) = server.script("start", natping: natping)
            if status == 0 { return server }
            lastError = output
            _ = server.script("stop")
        }
        throw KamailioError(message: "kamailio.sh start failed: \(lastError)")
    }

    /// Runs `scripts/kamailio.sh <command>` for this instance; returns its exit status and
    /// output. posix_spawn + waitpid (not Foundation's Process, which can hang when several
    /// suites launch processes at once), with an empty signal mask for the child.
    @discardableResult
    func script(_ command: String, natping: Int = 30) -> (Int32, String) {
        let output = runDir + ".\(command).out"
        FileManager.default.createFile(atPath: output, contents: nil)
        var env = ProcessInfo.processInfo.environment
        env["KAMAILIO_SIP_PORT"] = String(sipPort)
        env["KAMAILIO_TLS_PORT"] = String(tlsPort)
        env["KAMAILIO_WS_PORT"] = String(wsPort)
        env["KAMAILIO_WSS_PORT"] = String(wssPort)
        env["KAMAILIO_NATPING"] = String(natping)
        env["KAMAILIO_RUN_DIR"] = runDir
        env["KAMAILIO_WAKE_GATEWAY"] = wakeGateway  // nil removes an inherited value: gateway off
        env["KAMAILIO_OWNER_PID"] = String(getpid())  // a crashed test run leaves no Kamailio behind
        let argv = ["/bin/bash", Self.repoRoot + "/scripts/kamailio.sh", command]
        let envp = env.map { "\($0.key)=\($0.value)" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = envp.map { strdup($0) } + [nil]
        defer {
            for arg in cArgs { free(arg) }
            for entry in cEnv { free(entry) }
        }
        guard posix_spawn(&pid, "/bin/bash", &actions, &attributes, cArgs, cEnv) == 0 else {
            return (127, "posix_spawn failed")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: output)
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), text)
    }

    func stop() {
        script("stop")
        // ASTRA_KEEP_KAMAILIO_RUN=1 keeps the run dir (kamailio.log) for debugging.
        if ProcessInfo.processInfo.environment["ASTRA_KEEP_KAMAILIO_RUN"] == nil {
            try? FileManager.default.removeItem(atPath: runDir)
        }
    }

    func port(for transport: TransportKind) -> UInt16 {
        switch transport {
        case .udp, .tcp: sipPort
        case .tls: tlsPort
        case .ws: wsPort
        case .wss: wssPort
        }
    }
}

struct KamailioError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// An OPTIONS request (RFC 3261 §11) for the given flow; Kamailio answers 200 itself.
func optionsRequest(transport: TransportKind, sentBy: String, port: UInt16, seq: Int = 1) -> [UInt8] {
    let branch = "z9hG4bK-astra-\(UInt32.random(in: 0...UInt32.max))-\(seq)"
    let rport = transport == .udp ? ";rport" : ""
    let text =
        "OPTIONS sip:127.0.0.1:\(port) SIP/2.0\r\n"
        + "Via: SIP/2.0/\(transport.viaToken) \(sentBy);branch=\(branch)\(rport)\r\n"
        + "Max-Forwards: 70\r\n"
        + "From: <sip:1001@127.0.0.1>;tag=astra\(seq)\r\n"
        + "To: <sip:127.0.0.1:\(port)>\r\n"
        + "Call-ID: astra-options-\(branch)\r\n"
        + "CSeq: \(seq) OPTIONS\r\n"
        + "Contact: <sip:1001@\(sentBy);transport=\(transport.uriParameter)>\r\n"
        + "Content-Length: 0\r\n\r\n"
    return Array(text.utf8)
}
