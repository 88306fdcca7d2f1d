import AstraTestSupport
import Foundation
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// issue 19 "Must show": astra-register as a monitoring plugin (Monitoring Plugins
    /// guidelines). The fast server is the project's Kamailio over WSS; the slow one is sipp
    /// answering REGISTER after a pause (scripts/sipp/slow-registrar.xml), so the same
    /// thresholds give OK, WARNING and CRITICAL with the status line and perfdata.
    @Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sipp")))
    struct AstraRegisterNagiosTests {
        typealias H = CallToolHarness
        static let thresholds = ["--nagios", "-w", "0.4", "-c", "1.2"]

        /// `SIP STATE - text|time=Xs;0.4;1.2;0;10 connect=…` → (state, time).
        static func parse(_ line: String) throws -> (state: String, time: Double) {
            let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
            try #require(parts.count == 2 && parts[0].hasPrefix("SIP "), "\(line)")
            let state = String(parts[0].dropFirst(4).prefix { $0 != " " })
            let time = try #require(parts[1].split(separator: " ").first { $0.hasPrefix("time=") })
            let fields = time.dropFirst(5).split(separator: ";", omittingEmptySubsequences: false)
            #expect(fields.count == 5 && fields[1] == "0.4" && fields[2] == "1.2" && fields[3] == "0" && fields[4] == "10",
                    "perfdata label=value;warn;crit;min;max: \(time)")
            return (state, try #require(Double(fields[0].dropLast())))
        }

        /// sipp as a registrar that answers after `pauseMs`; returns its port. sipp cannot bind
        /// port 0: it gets a port where nothing is bound, is waited for until its socket shows in
        /// /proc/net/udp (a generous bound: a busy machine), and starts again elsewhere if it
        /// ends first (the port was taken meanwhile).
        static func slowRegistrar(pauseMs: Int) async throws -> (ToolProcess, UInt16) {
            var lastError = ""
            for _ in 0..<3 {
                let port = TestPorts.freeUDP(in: 20_000...30_000)
                let sipp = try ToolProcess(
                    "/usr/bin/sipp",
                    [
                        "-sf", KamailioServer.repoRoot + "/scripts/sipp/slow-registrar.xml", "-p", String(port), "-i",
                        "127.0.0.1", "-m", "1", "-d", String(pauseMs), "-nostdin",
                    ])
                _ = await sipp.waitFor(.seconds(20)) { sipp.hasEnded || TestPorts.udpBound(port) }
                if !sipp.hasEnded && TestPorts.udpBound(port) { return (sipp, port) }
                lastError = sipp.stderr
                _ = await sipp.exitStatus(within: .milliseconds(1))  // reaps it, or ends it
            }
            throw ToolProcessError(message: "sipp not listening: \(lastError)")
        }

        @Test func fastServerIsOK() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let (status, out, err) = try await ToolProcess.run(
                "astra-register", Self.thresholds + H.line(server, .wss, user: "1035"))
            #expect(status == 0, "\(out) \(err)")
            let (state, time) = try Self.parse(out.trimmingCharacters(in: .newlines))
            #expect(state == "OK" && time < 0.4)
            #expect(out.hasPrefix("SIP OK - sip:1035@127.0.0.1 registered over wss in "))
            #expect(out.split(separator: "\n").count == 1 && err.isEmpty, "one line, nothing on stderr: \(err)")
        }

        @Test(arguments: [(700, "WARNING", Int32(1)), (1_600, "CRITICAL", Int32(2))])
        func slowServerWarnsOrIsCritical(pauseMs: Int, expected: String, exit: Int32) async throws {
            let (sipp, port) = try await Self.slowRegistrar(pauseMs: pauseMs)
            let (status, out, err) = try await ToolProcess.run(
                "astra-register",
                Self.thresholds + ["--server", "127.0.0.1:\(port)", "--transport", "udp", "sip:1036@127.0.0.1"])
            #expect(status == exit, "\(out) \(err)")
            let (state, time) = try Self.parse(out.trimmingCharacters(in: .newlines))
            #expect(state == expected)
            #expect(time >= Double(pauseMs) / 1000, "time \(time) includes sipp's \(pauseMs) ms pause")
            #expect(out.contains(expected == "WARNING" ? "(warning range 0.4)" : "(critical range 1.2)"))
            _ = await sipp.exitStatus(within: .seconds(5))
        }

        /// Usage and configuration errors: UNKNOWN (3), with a status line on stdout.
        @Test func usageErrorsAreUnknownWithAStatusLine() async throws {
            for (arguments, text) in [
                (["--nagios", "--transport", "sctp", "sip:1@127.0.0.1"], "option --transport: expected one of"),
                (["--nagios", "-w", "fast", "sip:1@127.0.0.1"], "option -w: 'fast' is not a range of seconds"),
                (["--nagios", "-c", "2:1", "sip:1@127.0.0.1"], "option -c: '2:1' is not a range"),
                (["--nagios", "--password-file", "/nonexistent/pw", "sip:1@127.0.0.1"], "cannot read '/nonexistent/pw'"),
                (["--nagios"], "no line given"),
            ] {
                let (status, out, err) = try await ToolProcess.run("astra-register", arguments)
                #expect(status == 3, "\(arguments): \(out) \(err)")
                #expect(out.hasPrefix("SIP UNKNOWN - " + text), "\(arguments): \(out)")
                #expect(out.filter { $0 == "\n" }.count == 1 && err.isEmpty, "\(arguments): \(err)")
            }
            // Without --nagios the same mistakes stay exit 64 with the tool's own line.
            let (status, out, err) = try await ToolProcess.run("astra-register", ["-w", "1", "sip:1@127.0.0.1"])
            #expect(status == 64 && out.isEmpty && err == "astra-register: -w/--warning needs --nagios\n")
        }

        /// A server certificate that does not verify against the configured CAs is configuration,
        /// not an outage: UNKNOWN (3), the reason and the fix in words once, no internal name.
        @Test func untrustedCertificateIsUnknown() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            for transport in [TransportKind.tls, .wss] {
                let (status, out, err) = try await ToolProcess.run(
                    "astra-register",
                    ["--nagios", "--password", "astra1037", "--server", "127.0.0.1:\(server.port(for: transport))",
                     "--transport", transport.rawValue, "sip:1037@127.0.0.1"])
                #expect(status == 3, "\(transport): \(out) \(err)")
                #expect(
                    out.hasPrefix("SIP UNKNOWN - the server's certificate is not trusted (unable to get local issuer "
                        + "certificate): pass --ca-file with the CA that signed it (or ca_file in the line)"),
                    "\(transport): \(out)")
                #expect(!out.contains("certificateVerificationFailed") && !out.contains("X509"), "\(out)")
                #expect(out.components(separatedBy: "--ca-file").count == 2, "the hint once: \(out)")
                #expect(out.filter { $0 == "\n" }.count == 1 && err.isEmpty, "\(transport): \(err)")
            }
        }

        /// A dead server is CRITICAL (2), not a tool exit code.
        @Test func deadServerIsCritical() async throws {
            let refusing = try RefusingTCPPort()
            let (status, out, _) = try await ToolProcess.run(
                "astra-register",
                Self.thresholds + ["--timeout", "1", "--server", "127.0.0.1:\(refusing.port)", "--transport", "tcp",
                                   "sip:1@127.0.0.1"])
            withExtendedLifetime(refusing) {}
            #expect(status == 2, "\(out)")
            #expect(out.hasPrefix("SIP CRITICAL - "), "\(out)")
        }
    }
}
