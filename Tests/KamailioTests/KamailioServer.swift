import AstraTestSupport
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
    /// `IP:PORT[,IP:PORT...]` of the wake gateways Kamailio diverts INVITEs to
    /// (KAMAILIO_WAKE_GATEWAYS), or nil.
    let wakeGateway: String?
    /// Further scripts/kamailio.sh settings, e.g. `KAMAILIO_WAKE_PING_S`.
    let settings: [String: String]
    /// `IP:PORT` of the rtpengine NG control port media goes through (KAMAILIO_RTPENGINE), or nil.
    let rtpengine: String?
    /// Extra rtpengine flags for offers/answers with a WebRTC side (KAMAILIO_RTPENGINE_FLAGS).
    let rtpengineFlags: String?
    /// TCP/TLS/WS worker processes (KAMAILIO_TCP_CHILDREN), nil: the script's default.
    let tcpChildren: Int?
    /// Validity of the throw-away certificates in days (KAMAILIO_CERT_DAYS), nil: the script's default.
    let certificateDays: Int?
    /// HAProxy ends TLS on the WSS port and passes plain WS to Kamailio (KAMAILIO_TLS_FRONT).
    let haproxyFront: Bool
    /// Kamailio's own WS listener behind HAProxy (only with ``haproxyFront``).
    var wsBackendPort: UInt16 { sipPort + 4 }
    var caFile: String { runDir + "/ca.crt" }

    static var repoRoot: String { RepositoryRoot.path }

    private init(
        base: UInt16, natping: Int, wakeGateway: String? = nil, rtpengine: String? = nil, rtpengineFlags: String? = nil,
        tcpChildren: Int? = nil, haproxyFront: Bool = false, certificateDays: Int? = nil, settings: [String: String] = [:]
    ) {
        self.settings = settings
        self.tcpChildren = tcpChildren
        self.haproxyFront = haproxyFront
        self.certificateDays = certificateDays
        self.wakeGateway = wakeGateway
        self.rtpengine = rtpengine
        self.rtpengineFlags = rtpengineFlags
        sipPort = base
        tlsPort = base + 1
        wsPort = base + 2
        wssPort = base + 3
        runDir = NSTemporaryDirectory() + "astra-kamailio-test-\(base)-\(getpid())"
    }

    /// Starts a Kamailio; retries on other ports when the chosen ones are busy. `base`: its SIP
    /// port (TLS, WS, WSS follow), one attempt only, for peers told the port before it starts.
    static func start(
        natping: Int = 30, wakeGateway: String? = nil, rtpengine: String? = nil, rtpengineFlags: String? = nil,
        tcpChildren: Int? = nil, haproxyFront: Bool = false, certificateDays: Int? = nil, settings: [String: String] = [:],
        base fixed: UInt16? = nil
    ) throws -> KamailioServer {
        var lastError = ""
        for _ in 0..<(fixed == nil ? 8 : 1) {
            // Four ports (SIP, TLS, WS, WSS), five with HAProxy in front (Kamailio's WS backend).
            let base =
                fixed ?? (haproxyFront ? TestPorts.random(alignment: 8, span: 8) : TestPorts.random(alignment: 4, span: 4))
            let server = KamailioServer(
                base: base, natping: natping, wakeGateway: wakeGateway, rtpengine: rtpengine,
                rtpengineFlags: rtpengineFlags, tcpChildren: tcpChildren, haproxyFront: haproxyFront,
                certificateDays: certificateDays, settings: settings)
            let (status, output) = server.script("start", natping: natping)
            if status == 0 { return server }
            lastError = output
            _ = server.script("stop")
        }
        throw KamailioError(message: "kamailio.sh start failed: \(lastError)")
    }

    /// Runs `scripts/kamailio.sh <command>` for this instance; returns its exit status and
    /// output (``runScript(_:_:environment:output:)``).
    @discardableResult
    func script(_ command: String, natping: Int = 30) -> (Int32, String) {
        var environment: [String: String?] = [
            "KAMAILIO_SIP_PORT": String(sipPort), "KAMAILIO_TLS_PORT": String(tlsPort),
            "KAMAILIO_WS_PORT": String(wsPort), "KAMAILIO_WSS_PORT": String(wssPort),
            "KAMAILIO_NATPING": String(natping), "KAMAILIO_RUN_DIR": runDir,
            "KAMAILIO_WAKE_GATEWAYS": wakeGateway,  // nil removes an inherited value: gateway off
            "KAMAILIO_WAKE_GATEWAY": nil,
            "KAMAILIO_RTPENGINE": rtpengine,  // nil: SDP passes untouched
            "KAMAILIO_RTPENGINE_FLAGS": rtpengineFlags,
            "KAMAILIO_TCP_CHILDREN": tcpChildren.map(String.init),
            "KAMAILIO_CERT_DAYS": certificateDays.map(String.init),
            "KAMAILIO_TLS_FRONT": haproxyFront ? "haproxy" : nil,
            "KAMAILIO_WS_BACKEND_PORT": haproxyFront ? String(wsBackendPort) : nil,
            "KAMAILIO_OWNER_PID": String(getpid()),  // a crashed test run leaves no Kamailio behind
        ]
        for (name, value) in settings { environment[name] = value }
        return runScript("kamailio.sh", command, environment: environment, output: runDir + ".\(command).out")
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
