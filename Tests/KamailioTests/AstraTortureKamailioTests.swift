import Foundation
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// astra-torture against the project's Kamailio: every RFC 4475 / RFC 5118 message sent over
    /// UDP and TCP, a verdict for each, the committed baseline (config/torture/kamailio-5.6.json)
    /// held; a server frozen mid-run ends it with exit 3 naming the message after which it fell
    /// silent.
    @Suite struct AstraTortureKamailioTests {
        static let baseline = KamailioServer.repoRoot + "/config/torture/kamailio-5.6.json"

        /// The JSON objects of the stdout lines whose event is `name`.
        static func events(_ stdout: String, _ name: String) -> [[String: Any]] {
            stdout.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["event"] as? String == name
                else { return nil }
                return object
            }
        }

        @Test func everyMessageOverUDPAndTCPHoldsTheBaseline() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let junit = NSTemporaryDirectory() + "astra-torture-\(getpid()).xml"
            defer { try? FileManager.default.removeItem(atPath: junit) }
            // --wait 1500: an answer or a close delayed by a loaded machine still lands in its wait.
            let (status, out, err) = try await ToolProcess.run(
                "astra-torture",
                [
                    "--transport", "udp,tcp", "--wait", "1500", "--baseline", Self.baseline, "--junit", junit,
                    "127.0.0.1:\(server.sipPort)",
                ],
                timeout: .seconds(240))
            #expect(status == 0, "stderr: \(err)\n\(out.split(separator: "\n").filter { $0.contains("regression") })")
            let messages = Self.events(out, "message")
            let summaries = Self.events(out, "summary")
            #expect(summaries.count == 2, "\(out)")
            for transport in ["udp", "tcp"] {
                let sent = messages.filter { $0["transport"] as? String == transport }
                // Every message of both RFCs was sent, each with a verdict and its section.
                #expect(sent.count == 61, "\(transport): \(sent.count) messages")
                #expect(Set(sent.compactMap { $0["name"] as? String }).count == 61)
                for message in sent {
                    #expect(["match", "mismatch"].contains(message["verdict"] as? String ?? ""), "\(message)")
                    #expect(["match", "known"].contains(message["standing"] as? String ?? ""), "\(message)")
                    #expect((message["rfc"] as? String ?? "").hasPrefix("RFC "), "\(message)")
                    #expect(message["alive_after"] as? Bool == true, "\(message)")
                }
                // The declared changes are shown: a request's Via sent-by becomes this socket's.
                let wsinv = try #require(sent.first { $0["name"] as? String == "wsinv" })
                let changes = try #require(wsinv["changes"] as? [[String: Any]])
                #expect(
                    changes.first?["field"] as? String == "via-sent-by"
                        && changes.first?["from"] as? String == "192.0.2.2")
                #expect((changes.first?["to"] as? String ?? "").hasPrefix("127.0.0.1:"))
                let bcast = try #require(sent.first { $0["name"] as? String == "bcast" })
                #expect((bcast["changes"] as? [Any])?.isEmpty == true)
                let summary = try #require(summaries.first { $0["transport"] as? String == transport })
                #expect(summary["sent"] as? Int == 61 && summary["regressions"] as? Int == 0, "\(summary)")
                #expect(summary["server_alive"] as? Bool == true)
            }
            // Verdicts the RFCs name, as this Kamailio gives them: 483 to Max-Forwards 0, 400 to
            // the bracketless IPv6 reference, nothing back for a stray response.
            func observed(_ name: String, _ transport: String) -> String? {
                messages.first { $0["name"] as? String == name && $0["transport"] as? String == transport }?["observed"]
                    as? String
            }
            #expect(observed("zeromf", "udp") == "483")
            #expect(observed("ipv6-bad", "udp") == "400")
            #expect(observed("bigcode", "udp") == "none")
            // A full UDP run takes at most 60 s (the summary's t is ms since the start).
            let udp = try #require(summaries.first { $0["transport"] as? String == "udp" })
            #expect((udp["t"] as? Int ?? .max) <= 60_000, "\(udp)")
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            #expect(xml.contains("<testsuite name=\"udp\" tests=\"61\" failures=\"0\" errors=\"0\">"))
            #expect(xml.contains("<testsuite name=\"tcp\" tests=\"61\" failures=\"0\" errors=\"0\">"))
        }

        @Test func aServerThatStopsAnsweringEndsTheRunNamingTheMessage() async throws {
            let server = try KamailioServer.start()
            defer {
                server.script("thaw")
                server.stop()
            }
            let tool = try ToolProcess(
                "astra-torture", ["--wait", "300", "--timeout", "1500", "127.0.0.1:\(server.sipPort)"])
            // Freeze Kamailio (SIGSTOP: nothing answers, nothing closes) once five verdicts are in.
            #expect(await tool.waitFor(.seconds(60)) { tool.events("message").count >= 5 }, "\(tool.stderr)")
            server.script("freeze")
            let status = await tool.exitStatus(within: .seconds(60))
            #expect(status == 3, "stderr: \(tool.stderr)")
            let messages = Self.events(tool.stdout, "message")
            let last = try #require(messages.last)
            let name = try #require(last["name"] as? String)
            #expect(last["alive_after"] as? Bool == false, "\(last)")
            #expect(messages.dropLast().allSatisfy { $0["alive_after"] as? Bool == true })
            let summary = try #require(Self.events(tool.stdout, "summary").first)
            #expect(summary["stopped_after"] as? String == name, "\(summary)")
            #expect(summary["server_alive"] as? Bool == false)
            #expect((summary["sent"] as? Int ?? 0) < 61)
            #expect(tool.stderr.contains("the server stopped answering after \(name)"), "\(tool.stderr)")
        }
    }
}
