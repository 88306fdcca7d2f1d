import Foundation
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// issue 4 "Must show": astra-register against the project's Kamailio, as a user runs it.
    @Suite struct AstraRegisterToolTests {
        func lineArguments(_ server: KamailioServer, _ transport: TransportKind, user: String = "1001",
                           password: String? = nil) -> [String] {
            ["--password", password ?? "astra\(user)", "--server", "127.0.0.1:\(server.port(for: transport))",
             "--transport", transport.rawValue, "--ca-file", server.caFile, "sip:\(user)@127.0.0.1"]
        }

        @Test func registersOverEveryTransport() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            for (index, transport) in TransportKind.allCases.enumerated() {
                let (status, out, err) = try await ToolProcess.run(
                    "astra-register", lineArguments(server, transport, user: "10\(10 + index)"))
                #expect(status == 0, "\(transport): \(err)")
                let result = try #require(out.split(separator: "\n").last.map(String.init))
                #expect(result.contains("\"event\":\"result\""))
                #expect(result.contains("\"registered\":true"), "\(transport): \(result)")
                #expect(result.contains("\"transport\":\"\(transport.rawValue)\""))
                #expect(result.contains("\"unregistered\":true"))
                #expect(err.isEmpty, "\(transport) stderr: \(err)")
            }
        }

        /// Configuration is not an outage (docs/tools.md "Exit codes"): a certificate that does not
        /// verify exits 6 with the hint; a missing or non-PEM CA file exits 64 before connecting;
        /// a closed UDP port ends the attempt at once on the ICMP error (exit 3, "port unreachable").
        @Test func exitCodesTellConfigurationFromOutage() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let port = "127.0.0.1:\(server.port(for: .tls))"
            // The server's throw-away CA is not in the system store.
            let (status, json, err) = try await ToolProcess.run(
                "astra-register", ["--password", "astra1001", "--server", port, "--transport", "tls", "sip:1001@127.0.0.1"])
            #expect(status == 6, "\(err)")
            // stderr is for a person: the reason and the fix once, no internal code name; the
            // JSON `reason` keeps the machine text.
            #expect(
                err == "astra-register: the server's certificate is not trusted (unable to get local issuer "
                    + "certificate): pass --ca-file with the CA that signed it (or ca_file in the line)\n", "\(err)")
            #expect(json.contains("\"reason\":\"certificateVerificationFailed [TLS \(port)]"), "\(json)")
            for caFile in ["/nonexistent/ca.pem", "/etc/hostname"] {
                let (code, _, text) = try await ToolProcess.run(
                    "astra-register",
                    ["--password", "astra1001", "--server", port, "--transport", "tls", "--ca-file", caFile,
                     "sip:1001@127.0.0.1"])
                #expect(code == 64, "\(caFile): \(text)")
                #expect(text.hasPrefix("astra-register: ca_file '\(caFile)'") && text.split(separator: "\n").count == 1)
            }
            // A port the kernel just gave us and took back: nothing listens there.
            let closed = Self.closedUDPPort()
            let clock = ContinuousClock()
            let start = clock.now
            let (code, out, text) = try await ToolProcess.run(
                "astra-register", ["--password", "astra1001", "--server", "127.0.0.1:\(closed)", "--timeout", "30",
                                   "sip:1001@127.0.0.1"])
            #expect(code == 3, "\(text)")
            #expect(text.contains("port unreachable"), "\(text)")
            #expect(out.contains("\"registered\":false"))
            #expect(clock.now - start < .seconds(5))
        }

        /// A UDP port that was free a moment ago (bound to port 0, then closed).
        static func closedUDPPort() -> UInt16 {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length)
                    return getsockname(fd, pointer, &length)
                }
            }
            return UInt16(bigEndian: address.sin_port)
        }

        @Test func wrongPasswordExitsOneNamingTheFinalStatus() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let (status, out, err) = try await ToolProcess.run(
                "astra-register", lineArguments(server, .tcp, password: "not-the-password"))
            #expect(status == 1)
            #expect(
                err == "astra-register: the registrar refused the credentials (401 Unauthorized): check the password "
                    + "(--password-file) and the authentication user (--auth-user)\n")
            #expect(out.contains("\"status\":401"))
            #expect(!out.contains("not-the-password") && !err.contains("not-the-password"))
        }

        @Test func stoppedServerExitsThreeWithinTheTimeout() async throws {
            let server = try KamailioServer.start()
            // Its CA stays readable (stopping removes the run dir): a missing CA file is
            // configuration (64), not the outage this test is about.
            let ca = FileManager.default.temporaryDirectory.appendingPathComponent("astra-ca-\(UInt32.random(in: 0...UInt32.max)).pem")
            try FileManager.default.copyItem(atPath: server.caFile, toPath: ca.path)
            defer { try? FileManager.default.removeItem(at: ca) }
            server.stop()
            let clock = ContinuousClock()
            for transport in [TransportKind.udp, .wss] {
                let start = clock.now
                var arguments = lineArguments(server, transport)
                arguments[arguments.firstIndex(of: server.caFile)!] = ca.path
                let (status, _, err) = try await ToolProcess.run("astra-register", ["--timeout", "2"] + arguments)
                #expect(status == 3, "\(transport): \(err)")
                #expect(clock.now - start < .seconds(4))
                #expect(err.split(separator: "\n").count == 1, "one line: \(err)")
            }
        }

        /// Load mode over UDP (one loop, decision D13): every line registers with digest, each is
        /// reported, the summary counts them; a dead server fails fast with exit 3.
        @Test func loadModeRegistersEveryLineAndFailsFastOnADeadServer() async throws {
            let server = try KamailioServer.start()
            let lines = (0..<30).map { index in
                let user = 1020 + index % 10
                return "{\"v\":1,\"user\":\"\(user)\",\"password\":\"astra\(user)\",\"domain\":\"127.0.0.1\","
                    + "\"server\":\"127.0.0.1:\(server.port(for: .udp))\",\"transport\":\"udp\"}"
            }.joined(separator: "\n")
            let (status, out, err) = try await ToolProcess.run(
                "astra-register", ["--load", "-", "--concurrency", "5"], stdin: lines)
            #expect(status == 0, "\(err)")
            #expect(err.isEmpty, "stderr: \(err)")
            let events = out.split(separator: "\n")
            #expect(events.filter { $0.contains("\"event\":\"line_result\"") && $0.contains("\"registered\":true") }
                .count == 30)
            let summary = try #require(events.last.map(String.init))
            #expect(summary.contains("\"event\":\"load_summary\""))
            #expect(summary.contains("\"registered\":30") && summary.contains("\"failed\":0"), "\(summary)")
            #expect(!out.contains("astra1020"))

            server.stop()
            let clock = ContinuousClock()
            let start = clock.now
            let (deadStatus, deadOut, _) = try await ToolProcess.run(
                "astra-register", ["--load", "-", "--concurrency", "5"], stdin: lines)
            #expect(deadStatus == 3)
            #expect(clock.now - start < .seconds(5))
            #expect(deadOut.contains("\"registered\":0"))
        }

        @Test func malformedLineJSONExitsSixtyFour() async throws {
            let (status, out, err) = try await ToolProcess.run("astra-register", ["--line", "-"],
                                                               stdin: "{\"user\": \"1001\", \"domain\": ")
            #expect(status == 64)
            #expect(out.isEmpty)
            #expect(err.hasPrefix("astra-register: ") && err.split(separator: "\n").count == 1)
        }

        @Test func expectQualifyAnswersKamailiosOptions() async throws {
            let server = try KamailioServer.start(natping: 1)
            defer { server.stop() }
            for transport in [TransportKind.udp, .wss] {
                let (status, out, err) = try await ToolProcess.run(
                    "astra-register", ["--expect-qualify", "--timeout", "15"] + lineArguments(server, transport))
                #expect(status == 0, "\(transport): \(err)")
                #expect(out.contains("\"event\":\"qualify_answered\""))
                #expect(out.contains("\"qualified\":true"))
            }
        }

        @Test func keepRecoversAfterKamailioRestartsAndUnregistersOnSIGINT() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            for transport in [TransportKind.tcp, .wss] {
                let process = try ToolProcess("astra-register", ["--keep"] + lineArguments(server, transport))
                #expect(await process.waitFor(.seconds(10)) { process.events("registered").count == 1 }, "\(transport)")
                server.script("kill")
                #expect(await process.waitFor(.seconds(10)) { !process.events("flow_down").isEmpty })
                let (started, log) = server.script("start")
                #expect(started == 0, "restart: \(log)")
                // No user action: the transport reconnects (back-off ≤ 2 s at first) and the line
                // registers again on the new flow.
                #expect(await process.waitFor(.seconds(20)) { process.events("registered").count >= 2 },
                        "\(transport): \(process.stdout)")
                #expect(process.events("registered").last?.contains("\"refresh\":true") == true)
                process.signal(SIGINT)
                #expect(await process.exitStatus(within: .seconds(10)) == 0, "\(process.stderr)")
                #expect(process.events("result").first?.contains("\"unregistered\":true") == true, "\(process.stdout)")
            }
        }

        /// `timings_ms` are stamped where the messages cross the wire, on the trace's clock: over
        /// UDP `first_response` and `register` equal what the `--sip-trace` timestamps say
        /// (first REGISTER sent → first response / the registering 200 received), within 1 ms.
        @Test func timingsAgreeWithTheSIPTrace() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            for user in ["1051", "1052", "1053"] {
                let (status, out, err) = try await ToolProcess.run(
                    "astra-register", ["--sip-trace"] + lineArguments(server, .udp, user: user))
                #expect(status == 0, "\(err)")
                let trace = Self.traceStamps(err)
                let sent = try #require(trace.first { $0.sent && $0.startLine.hasPrefix("REGISTER ") })
                let firstResponse = try #require(trace.first { !$0.sent && $0.startLine.hasPrefix("SIP/2.0 ") })
                let ok = try #require(trace.first { !$0.sent && $0.startLine.hasPrefix("SIP/2.0 200") })
                let result = try #require(out.split(separator: "\n").last.map(String.init))
                let reported = try #require(Self.number("first_response", in: result))
                let registered = try #require(Self.number("register", in: result))
                let traced = (firstResponse.micros - sent.micros) / 1000, tracedOK = (ok.micros - sent.micros) / 1000
                #expect(abs(reported - traced) < 1, "first_response \(reported) ms, trace says \(traced) ms")
                #expect(abs(registered - tracedOK) < 1, "register \(registered) ms, trace says \(tracedOK) ms")
                #expect(reported > 0 && registered >= reported)
            }
        }

        /// The `----- <ISO time> SENT|RECV …` headers of a `--sip-trace`, with each message's
        /// start line and its time of day in microseconds.
        static func traceStamps(_ trace: String) -> [(sent: Bool, startLine: String, micros: Double)] {
            let lines = trace.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var stamps: [(Bool, String, Double)] = []
            for (index, line) in lines.enumerated() where line.hasPrefix("----- ") && index + 1 < lines.count {
                let parts = line.split(separator: " ")
                guard parts.count > 2, let t = parts[1].split(separator: "T").last else { continue }
                let clock = t.dropLast().split(separator: ":")  // HH MM SS.ffffff (Z dropped)
                guard clock.count == 3, let h = Double(clock[0]), let m = Double(clock[1]), let s = Double(clock[2])
                else { continue }
                stamps.append((parts[2] == "SENT", lines[index + 1], ((h * 60 + m) * 60 + s) * 1_000_000))
            }
            return stamps
        }

        /// A number field of a JSON line (test helper, not a JSON parser).
        static func number(_ key: String, in line: String) -> Double? {
            guard let range = line.range(of: "\"\(key)\":") else { return nil }
            return Double(line[range.upperBound...].prefix { "0123456789.-".contains($0) })
        }

        @Test func noSecretAppearsInOutputOrTrace() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let (status, out, err) = try await ToolProcess.run(
                "astra-register", ["--sip-trace", "-vv"] + lineArguments(server, .wss, user: "1050"))
            #expect(status == 0, "\(err)")
            let all = out + err
            #expect(err.contains("REGISTER sip:127.0.0.1 SIP/2.0"))  // the trace is there…
            #expect(err.contains("Authorization: Digest"))
            #expect(!all.contains("astra1050"))  // …without the password,
            // …and without the digest response, the one value derived from it (the nonce and
            // cnonce carry no secret and stay: docs/decisions.md D21).
            let response = try Regex(#"response="[0-9a-f]{32}""#)
            #expect(all.firstMatch(of: response) == nil)
            #expect(err.contains(#"response="<redacted>""#))
        }
    }
}
