import Foundation
import Testing

extension KamailioPeer {
    /// `astra-pushsim live … --sealed` end to end, the tool itself as a child process: it starts a
    /// real Kamailio and a real `astra-wakegw --sealed required --provider-capture FILE`, the phone
    /// registers a fresh device key, call grant and call key, and its app (a client process the
    /// emulated iOS starts at the push) is handed its keys and judged on the real sealed push.
    @Suite struct PushWakeLiveSealedTests {
        static let repo = KamailioServer.repoRoot

        /// Runs `astra-pushsim live killed --sealed` with `extra`; returns status, stdout, stderr and
        /// the provider capture's lines.
        static func live(_ extra: [String]) async throws -> (Int32?, String, String, [String]) {
            let capture = NSTemporaryDirectory() + "astra-sealed-capture-\(UUID().uuidString).jsonl"
            defer { try? FileManager.default.removeItem(atPath: capture) }
            let (status, out, err) = try await ToolProcess.run(
                "astra-pushsim",
                ["live", "killed", "--sealed", "--provider-capture", capture, "--json", "--kamailio-script",
                 repo + "/scripts/kamailio.sh"] + extra,
                timeout: .seconds(90))
            let lines = ((try? String(contentsOfFile: capture, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            return (status, out, err, lines)
        }

        /// Nothing secret in what the tool prints: no grant (a JWS), no device key (P-256 SPKI), no
        /// push token, no sealed caller blob.
        static func expectNoSecrets(_ text: String, capture: [String]) {
            #expect(!text.contains("eyJ"), "a JWS (the grant) in the output")
            #expect(!text.contains("MFkwEwYHKoZIzj0"), "the device key in the output")
            #expect(!text.contains("0000000000001111"), "the push token in the output")
            for line in capture {
                if let range = line.range(of: "caller_blob") {
                    let blob = line[range.upperBound...].dropFirst(5).prefix(40)  // `\":\"` then the blob
                    #expect(blob.count == 40 && !text.contains(blob), "the sealed blob in the output")
                }
            }
        }

        /// The correct client: two-way audio over a sealed push; the provider saw sealed bodies that
        /// name neither the caller's user nor its number.
        @Test func sealedKilledPhoneConnectsWithTwoWayAudio() async throws {
            let (status, out, err, capture) = try await Self.live(["--policy", "correct"])
            #expect(status == 0, "\(err)\n\(out)")
            let verdict = try #require(out.split(separator: "\n").last.map(String.init))
            #expect(verdict.contains("\"ok\":true"), "\(verdict)")
            #expect(verdict.contains("\"two_way_audio\":true"), "\(verdict)")
            #expect(out.contains("\"seal_check\"") && out.contains("\"opened\""), "\(out)")
            #expect(out.contains("\"caller_shown\""), "the opened caller is shown")
            let apns = capture.filter { $0.contains("\"provider\":\"apns\"") }
            #expect(apns.count == 1, "\(capture)")
            for line in apns {
                #expect(line.contains("caller_blob") && line.contains("gw"), "\(line)")
                #expect(!line.contains("1001"), "the caller's user in a sealed body: \(line)")
                #expect(!line.contains("\"caller\""), "\(line)")
            }
            Self.expectNoSecrets(out + err, capture: capture)
        }

        /// The push's call ID (or one ciphertext byte) changed on the way: the correct client
        /// reports the app's name, ends the call and never acks — the verdict passes, the caller
        /// is failed over (no ack).
        @Test(arguments: ["wrong_call_id", "tampered"])
        func tamperedPushIsReportedAndEndedByTheCorrectClient(fault: String) async throws {
            let (status, out, err, capture) = try await Self.live(["--policy", "correct", "--seal-fault", fault])
            #expect(status == 0, "\(err)\n\(out)")
            #expect(out.contains("\"seal_check\"") && out.contains("\"unopenable\""), "\(out)")
            #expect(!out.contains("\"ack_sent\""), "an unopenable push is never acked")
            #expect(!out.contains("\"caller_shown\""))
            #expect(out.contains("\"callkit_end\""), "reported and ended")
            #expect(out.contains("wake no_ack"), "the caller's final response")
            #expect(out.split(separator: "\n").last?.contains("\"ok\":true") == true)
            Self.expectNoSecrets(out + err, capture: capture)
        }

        /// The same with the naive preset and with the Python client that decrypts without the tag:
        /// both trust the push — flagged R5 `sealed_push_trusted` / `sealed_caller_shown`, exit 1.
        @Test(arguments: ["preset", "python"]) func tamperedCallIDIsFlaggedForTheNaiveClient(client: String) async throws {
            let policy =
                client == "preset"
                ? ["--policy", "naive"]
                : ["--client-cmd", "python3 '\(Self.repo)/Examples/python-client/naive_sealed_client.py'"]
            let (status, out, err, capture) = try await Self.live(policy + ["--seal-fault", "wrong_call_id"])
            #expect(status == 1, "\(err)\n\(out)")
            #expect(out.contains("\"unopenable\""), "\(out)")
            #expect(out.contains("sealed_push_trusted"), "\(out)")
            #expect(out.contains("sealed_caller_shown"), "\(out)")
            Self.expectNoSecrets(out + err, capture: capture)
        }
    }
}
