import AstraJSON
import AstraTestSupport
import Foundation
import Testing

extension KamailioPeer {
    /// `astra-register --monitor` against the project's Kamailio: three lines (UDP, TLS, WSS)
    /// scraped by curl (`promtool check metrics` clean) and by a real Prometheus running the
    /// alert rules of docs/monitoring.md; Kamailio killed (every line 0 within two ping intervals
    /// plus the timeout, failures counted by cause) and started again (every line 1 again, the
    /// monitor never restarted); the server certificate, valid 3 days, reported to the second
    /// `openssl x509 -enddate` prints; SIGHUP with one line removed and one added leaves the
    /// other two untouched.
    @Suite struct AstraRegisterMonitorTests {
        static let pingInterval = 3
        static let timeout = 2
        static let names = ["udp-1", "tls-1", "wss-1"]

        static func linesFile(_ server: KamailioServer) throws -> String {
            let rows = zip(names, [("udp", server.sipPort), ("tls", server.tlsPort), ("wss", server.wssPort)])
                .enumerated().map { index, pair in
                    let (name, (transport, port)) = pair
                    let user = "10\(61 + index)"
                    return #"{"name":"\#(name)","user":"\#(user)","password":"astra\#(user)","domain":"127.0.0.1","#
                        + #""server":"127.0.0.1:\#(port)","transport":"\#(transport)","ca_file":"\#(server.caFile)","expires":60}"#
                }
            let path = NSTemporaryDirectory() + "astra-monitor-lines-\(UUID().uuidString).jsonl"
            try (rows.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        /// notAfter of a PEM certificate as `openssl x509 -enddate` prints it, in Unix seconds.
        static func enddate(_ path: String) async throws -> Int {
            let printed = try await ChildProcess.run(command: "openssl", ["x509", "-enddate", "-noout", "-in", path])
            let date = try #require(printed.text.split(separator: "=", maxSplits: 1).last).trimmingCharacters(in: .whitespacesAndNewlines)
            let seconds = try await ChildProcess.run(command: "date", ["-u", "-d", date, "+%s"])
            return try #require(Int(seconds.text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }

        @Test func threeLinesThroughPrometheusThroughAKamailioRestart() async throws {
            let server = try KamailioServer.start(natping: 5, certificateDays: 3)
            defer { server.stop() }
            let lines = try Self.linesFile(server)
            defer { try? FileManager.default.removeItem(atPath: lines) }
            let monitor = try ToolProcess(
                "astra-register",
                ["--monitor", lines, "--metrics", "127.0.0.1:0", "--ping-interval", String(Self.pingInterval),
                 "--timeout", String(Self.timeout), "--json"])
            defer { monitor.signal(SIGKILL) }
            let address = try #require(
                await eventuallySome(timeout: .seconds(10), every: .milliseconds(20)) { () -> String? in
                    guard let event = monitor.events("monitoring").first else { return nil }
                    return (try? JSONValue.parse(event))?["metrics"]?.stringValue
                }, "\(monitor.stderr)")
            let metricsURL = "http://\(address)/metrics"
            func scrape() async -> String { await MonitorRig.get(metricsURL) ?? "" }
            func all(_ name: String, _ value: Double, in text: String) -> Bool {
                Self.names.allSatisfy { MonitorRig.sample(text, name, ["line": $0]) == value }
            }

            // Registered and answering, over all three transports.
            let registered = await eventually(timeout: .seconds(20), every: .milliseconds(100)) {
                let text = await scrape()
                return all("sip_line_registered", 1, in: text) && all("sip_line_up", 1, in: text)
            }
            let text = await scrape()
            #expect(registered, "\(text)\n\(monitor.stdout)\(monitor.stderr)")
            let lint = try await ChildProcess.run(command: "promtool", ["check", "metrics"], stdin: Data(text.utf8))
            #expect(lint.status == 0 && lint.text.isEmpty && lint.stderr.isEmpty, "promtool: \(lint.text)\(lint.stderr)")
            #expect(!text.contains("astra10"), "a password in the metrics")
            let openMetrics = await MonitorRig.get(metricsURL, accept: "application/openmetrics-text;version=1.0.0") ?? ""
            #expect(openMetrics.hasSuffix("# EOF\n") && openMetrics.contains("sip_line_failures_total{"))

            // The certificate Kamailio serves, valid 3 days: its notAfter to the second.
            let notAfter = try await Self.enddate(server.runDir + "/server.crt")
            for name in ["tls-1", "wss-1"] {
                #expect(MonitorRig.sample(text, "sip_tls_certificate_expiry_timestamp_seconds", ["line": name]) == Double(notAfter))
            }
            #expect(abs(Double(notAfter) - Date().timeIntervalSince1970 - 3 * 86_400) < 3_600)
            #expect(MonitorRig.sample(text, "sip_tls_certificate_expiry_timestamp_seconds", ["line": "udp-1"]) == nil)

            // A real Prometheus scrapes the monitor (OpenMetrics, its first choice) and evaluates the documented rules.
            let rules = try #require(try MonitoringDocs.rules())
            var prometheus: MonitorRig.Prometheus?
            for _ in 0..<3 where prometheus == nil {
                let started = try MonitorRig.Prometheus(target: address, rules: rules)
                if await eventually(timeout: .seconds(20), every: .milliseconds(200), {
                    await MonitorRig.get("http://127.0.0.1:\(started.port)/-/ready") != nil || started.process.exitStatus != nil
                }), started.process.exitStatus == nil {
                    prometheus = started
                } else {
                    await started.stop()
                }
            }
            let server2 = try #require(prometheus, "prometheus did not start")
            defer { Task { [server2] in await server2.stop() } }
            let scraped = await eventually(timeout: .seconds(30), every: .milliseconds(250)) {
                await server2.query("sip_line_registered") == ["udp-1": 1, "tls-1": 1, "wss-1": 1]
            }
            let seen = await server2.query("sip_line_registered")
            #expect(scraped, "\(seen)")
            let target = await server2.api("targets")?["data"]?["activeTargets"]?.arrayValue?.first
            #expect(target?["health"]?.stringValue == "up", "\(String(describing: target))")
            #expect(target?["lastError"]?.stringValue == "")
            // The 3-day certificate is inside the 14-day alert's window: pending (for: 1h).
            #expect(
                await eventually(timeout: .seconds(20), every: .milliseconds(250)) {
                    let alerts = await server2.api("alerts")?["data"]?["alerts"]?.arrayValue ?? []
                    let lines = alerts.filter { $0["labels"]?["alertname"]?.stringValue == "SIPCertificateExpiresSoon" }
                        .compactMap { $0["labels"]?["line"]?.stringValue }
                    return Set(lines) == ["tls-1", "wss-1"]
                })

            // Kamailio dies: every line 0 within two ping intervals plus the timeout, the causes counted.
            let before = await scrape()
            let (killed, killLog) = server.script("kill")
            #expect(killed == 0, "\(killLog)")
            let clock = ContinuousClock()
            let killedAt = clock.now
            let bound = Duration.seconds(2 * Self.pingInterval + Self.timeout)
            #expect(
                await eventually(timeout: bound + .seconds(10), every: .milliseconds(100)) {
                    let text = await scrape()
                    return all("sip_line_registered", 0, in: text) && all("sip_line_up", 0, in: text)
                })
            let downAfter = killedAt.duration(to: clock.now)
            #expect(downAfter <= bound, "down after \(downAfter), bound \(bound)")
            let after = await scrape()
            func failures(_ text: String, _ line: String, _ cause: String) -> Double {
                MonitorRig.sample(text, "sip_line_failures_total", ["line": line, "cause": cause]) ?? -1
            }
            #expect(failures(after, "udp-1", "timeout") > failures(before, "udp-1", "timeout"))
            for name in ["tls-1", "wss-1"] {
                let rose = ["closed", "refused"].contains { failures(after, name, $0) > failures(before, name, $0) }
                #expect(rose, "\(name): \(after)")
            }
            #expect(
                await eventually(timeout: .seconds(20), every: .milliseconds(250)) {
                    await server2.query("sip_line_registered") == ["udp-1": 0, "tls-1": 0, "wss-1": 0]
                })

            // Kamailio back: every line registered again by itself, the same monitor process.
            let (started, startLog) = server.script("start", natping: 5)
            #expect(started == 0, "\(startLog)")
            // UDP: the first answered OPTIONS registers again at once, not at the next refresh
            // (the binding's refresh is ~50 s away): within two ping intervals plus the timeout, and slack.
            let restartedAt = clock.now
            let udpBack = await eventually(timeout: bound + .seconds(7), every: .milliseconds(100)) {
                MonitorRig.sample(await scrape(), "sip_line_registered", ["line": "udp-1"]) == 1
            }
            #expect(udpBack, "udp-1 not registered \(restartedAt.duration(to: clock.now)) after the restart")
            let recovered = await eventually(timeout: .seconds(30), every: .milliseconds(250)) {
                await server2.query("sip_line_registered") == ["udp-1": 1, "tls-1": 1, "wss-1": 1]
            }
            let final = await scrape()
            #expect(recovered, "\(final)")
            #expect(!monitor.hasEnded)
            #expect(monitor.events("monitoring").count == 1)

            // SIGHUP: wss-1 leaves, udp-2 joins; udp-1 and tls-1 are not touched (no new registration round).
            let rounds = { (text: String, line: String) in
                MonitorRig.sample(text, "sip_register_duration_seconds_count", ["line": line]) ?? -1
            }
            let beforeReload = await scrape()
            var rows = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n").prefix(2).map(String.init)
            rows.append(
                #"{"name":"udp-2","user":"1064","password":"astra1064","domain":"127.0.0.1","server":"127.0.0.1:\#(server.sipPort)","#
                    + #""transport":"udp","expires":60}"#)
            try (rows.joined(separator: "\n") + "\n").write(toFile: lines, atomically: true, encoding: .utf8)
            monitor.signal(SIGHUP)
            let reloaded = await eventually(timeout: .seconds(20), every: .milliseconds(100)) {
                let text = await scrape()
                return MonitorRig.sample(text, "sip_line_registered", ["line": "udp-2"]) == 1
                    && MonitorRig.sample(text, "sip_line_up", ["line": "wss-1"]) == nil
            }
            let afterReload = await scrape()
            #expect(reloaded, "\(afterReload)\n\(monitor.stdout)")
            #expect(monitor.events("reloaded").first?.contains(#""kept":2,"started":1,"stopped":1"#) == true, "\(monitor.stdout)")
            for name in ["udp-1", "tls-1"] {
                #expect(rounds(afterReload, name) == rounds(beforeReload, name), "\(name) was restarted by the reload")
                #expect(MonitorRig.sample(afterReload, "sip_line_registered", ["line": name]) == 1)
            }
            #expect(!afterReload.contains(#"line="wss-1""#))

            monitor.signal(SIGINT)
            #expect(await monitor.exitStatus(within: .seconds(15)) == 0, "\(monitor.stderr)")
            #expect(monitor.events("stopped").count == 1)
            #expect(!monitor.stdout.contains("astra10") && !monitor.stderr.contains("astra10"))
        }
    }
}

/// The alert rules block of docs/monitoring.md, as an operator copies it.
enum MonitoringDocs {
    static func rules() throws -> String? {
        let text = try String(contentsOfFile: KamailioServer.repoRoot + "/docs/monitoring.md", encoding: .utf8)
        let blocks = text.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "\n```").first ?? "" }
        return blocks.first { $0.contains("groups:") }.map { $0 + "\n" }
    }
}
