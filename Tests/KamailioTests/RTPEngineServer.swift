import AstraTestSupport
import Foundation
import Testing

/// One rtpengine (Debian package rtpengine-daemon) started through scripts/rtpengine.sh on
/// 127.0.0.1: userspace forwarding, a random NG control port and media port range, its own run
/// dir (rtpengine.log). Kamailio uses it with `KamailioServer.start(rtpengine: engine.control)`.
/// Stop it with ``stop()``.
final class RTPEngineServer: Sendable {
    let controlPort: UInt16
    let portMin: UInt16
    let runDir: String
    /// `--dtls-passive`: rtpengine prefers the DTLS server role (answers `a=setup:passive`).
    let dtlsPassive: Bool
    /// `127.0.0.1:PORT` of the NG control port (what KAMAILIO_RTPENGINE takes).
    var control: String { "127.0.0.1:\(controlPort)" }
    var logFile: String { runDir + "/rtpengine.log" }

    /// The rtpengine binary, when installed (`make deps`: scripts/debian-packages.txt).
    static let binary: String? = ["/usr/bin/rtpengine", "/usr/sbin/rtpengine"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let skipReason: Comment =
        "rtpengine is not installed (Debian package rtpengine-daemon; make deps installs it)"

    private init(controlPort: UInt16, portMin: UInt16, dtlsPassive: Bool) {
        self.dtlsPassive = dtlsPassive
        self.controlPort = controlPort
        self.portMin = portMin
        runDir = NSTemporaryDirectory() + "astra-rtpengine-test-\(controlPort)-\(getpid())"
    }

    /// Starts rtpengine; retries on other ports when the chosen ones are busy.
    static func start(dtlsPassive: Bool = false) throws -> RTPEngineServer {
        var lastError = ""
        for _ in 0..<8 {
            let controlPort = TestPorts.random()
            // Media ports: a block of 100 of their own, below the peers' range (TestPorts).
            let portMin = TestPorts.random(in: 10_000...19_999, alignment: 100, span: 100)
            let server = RTPEngineServer(controlPort: controlPort, portMin: portMin, dtlsPassive: dtlsPassive)
            let (status, output) = server.script("start")
            if status == 0 { return server }
            lastError = output
            server.script("stop")
        }
        throw KamailioError(message: "rtpengine.sh start failed: \(lastError)")
    }

    @discardableResult
    func script(_ command: String) -> (Int32, String) {
        let environment: [String: String?] = [
            "RTPENGINE_NG_PORT": String(controlPort), "RTPENGINE_PORT_MIN": String(portMin),
            "RTPENGINE_PORT_MAX": String(portMin + 99), "RTPENGINE_RUN_DIR": runDir,
            "RTPENGINE_DTLS_PASSIVE": dtlsPassive ? "1" : "0",
            "RTPENGINE_OWNER_PID": String(getpid()),  // a crashed test run leaves no rtpengine behind
        ]
        return runScript("rtpengine.sh", command, environment: environment, output: runDir + ".\(command).out")
    }

    /// rtpengine's log so far (for failure messages and its view of ICE and DTLS).
    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    func stop() {
        script("stop")
        // ASTRA_KEEP_KAMAILIO_RUN=1 keeps the run dir (rtpengine.log) for debugging.
        if ProcessInfo.processInfo.environment["ASTRA_KEEP_KAMAILIO_RUN"] == nil {
            try? FileManager.default.removeItem(atPath: runDir)
        }
    }
}
