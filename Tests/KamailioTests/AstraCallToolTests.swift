import AstraTestSupport
import Foundation
import Media
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// issue 8 "Must show": astra-call ↔ astra-call through the project's Kamailio.
    @Suite struct AstraCallToolTests {
        typealias H = CallToolHarness

        /// WSS caller ↔ UDP callee: a tone each way, heard for (almost) the whole call in both
        /// recordings, and RFC 4733 DTMF detected at the far end; the caller hangs up.
        @Test(arguments: [false, true]) func twoWayAudioAndDTMFWSSToUDP(srtp: Bool) async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let calleeWAV = H.temporaryPath("callee"), callerWAV = H.temporaryPath("caller")
            defer { for p in [calleeWAV, callerWAV] { try? FileManager.default.removeItem(atPath: p) } }
            let security = srtp ? ["--srtp", "sdes"] : []
            let callee = try await H.callee(
                server, .udp, user: "1002",
                ["--tone", "1000", "--record", calleeWAV, "--after", "0.3"] + security)
            let caller = try H.dial(
                server, .wss, user: "1001", to: "1002",
                ["--tone", "440", "--record", callerWAV, "--duration", "3", "--dtmf", "159#"] + security)
            #expect(await caller.exitStatus(within: .seconds(20)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stderr)")
            for process in [caller, callee] {
                let answered = try #require(process.events("answered").first)
                #expect(H.field("srtp", in: answered) == String(srtp))
                let ended = try #require(process.events("ended").first, "\(process.stdout)")
                #expect(Int(H.field("packets_received", in: ended) ?? "") ?? 0 > 120, "\(ended)")
                #expect(Double(H.field("mos", in: ended) ?? "") ?? 0 > 4, "\(ended)")
            }
            #expect(H.field("reason", in: caller.events("ended")[0]) == "local_hangup")
            #expect(H.field("reason", in: callee.events("ended")[0]) == "remote_hangup")
            let digits = callee.events("dtmf").compactMap { H.field("digit", in: $0) }.joined()
            #expect(digits == "159#", "\(callee.stdout)")
            // Each side hears the other's tone (and not its own) for nearly the 3 s call; the
            // caller's audio pauses while its four RFC 4733 digits (4 × 160 ms) are sent.
            #expect(try H.toneSeconds(callerWAV, frequency: 1000) >= 2.5)
            #expect(try H.toneSeconds(callerWAV, frequency: 440) == 0)
            #expect(try H.toneSeconds(calleeWAV, frequency: 440) >= 1.9)
            #expect(try H.toneSeconds(calleeWAV, frequency: 1000) == 0)
        }

        /// The callee hangs up (BYE from the UDP side); both exit 0. The caller plays a WAV file
        /// (16 kHz, resampled to 8 kHz) that the callee hears.
        @Test func calleeHangsUpWhileTheCallerPlaysAFile() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let wav = H.temporaryPath("play"), recording = H.temporaryPath("play-rec")
            defer { for p in [wav, recording] { try? FileManager.default.removeItem(atPath: p) } }
            var tone = ToneGenerator(frequencies: [700], sampleRate: 16_000)
            // The callee hangs up 2.5 s after its answer, before the 4-s file ends. Its recording
            // starts at the answer, the caller's media only after the 200 OK crossed Kamailio
            // twice: under a busy CPU that start has taken over 300 ms, so the bound below leaves
            // 1.3 s for it rather than asking most of a short call to be tone.
            try WAVFile(sampleRate: 16_000, samples: tone.samples(16_000 * 4)).write(path: wav)
            let callee = try await H.callee(server, .udp, user: "1004", ["--duration", "2.5", "--record", recording])
            let caller = try H.dial(server, .wss, user: "1003", to: "1004", ["--play", wav])
            #expect(await caller.exitStatus(within: .seconds(15)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(5)) == 0, "callee: \(callee.stderr)")
            #expect(caller.events("ended").first.flatMap { H.field("reason", in: $0) } == "remote_hangup")
            #expect(callee.events("ended").first.flatMap { H.field("reason", in: $0) } == "local_hangup")
            let heard = try H.toneSeconds(recording, frequency: 700)
            #expect(heard >= 1.2, "tone \(heard) s; callee: \(callee.events("first_rtp")) caller: \(caller.events("first_rtp"))")
        }

        /// SIGINT during an answered call: the caller sends BYE and exits 0 (local hang-up).
        @Test func sigintHangsUpAnActiveCall() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1020", [])
            let caller = try H.dial(server, .wss, user: "1019", to: "1020", [])
            #expect(await caller.waitFor(.seconds(10)) { !caller.events("answered").isEmpty }, "\(caller.stdout)")
            // Active both ways (the callee's media arrives) before the SIGINT, not after a delay.
            #expect(await caller.waitFor(.seconds(10)) { !caller.events("first_rtp").isEmpty }, "\(caller.stdout)")
            caller.signal(SIGINT)
            #expect(await caller.exitStatus(within: .seconds(10)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(5)) == 0, "callee: \(callee.stderr)")
            #expect(caller.events("ended").first.flatMap { H.field("reason", in: $0) } == "local_hangup")
            #expect(callee.events("ended").first.flatMap { H.field("reason", in: $0) } == "remote_hangup")
        }

        /// Hold and resume by re-INVITE from the caller: both sides report them.
        @Test func holdAndResume() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1006", [])
            let caller = try H.dial(
                server, .wss, user: "1005", to: "1006",
                ["--hold-after", "0.8", "--resume-after", "1.6", "--duration", "2.4"])
            #expect(await caller.exitStatus(within: .seconds(15)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(5)) == 0, "callee: \(callee.stderr)")
            #expect(caller.events("held").first.flatMap { H.field("by_peer", in: $0) } == "false", "\(caller.stdout)")
            #expect(caller.events("resumed").count == 1)
            let held = try #require(callee.events("held").first, "\(callee.stdout)")
            #expect(H.field("by_peer", in: held) == "true")
            #expect(H.field("direction", in: held) == "recvonly")
            #expect(callee.events("resumed").count == 1)
        }

        /// SIGINT while the callee rings: the caller CANCELs; both end "cancelled" (487), exit 1.
        @Test func cancelWhileRinging() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1008", ["--after", "30"])
            let caller = try H.dial(server, .wss, user: "1007", to: "1008", [])
            #expect(await caller.waitFor(.seconds(10)) { !caller.events("ringing").isEmpty }, "\(caller.stdout)")
            caller.signal(SIGINT)
            #expect(await caller.exitStatus(within: .seconds(10)) == 1, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 1, "callee: \(callee.stderr)")
            for process in [caller, callee] {
                let ended = try #require(process.events("ended").first, "\(process.stdout)")
                #expect(H.field("reason", in: ended) == "cancelled")
                #expect(H.field("status", in: ended) == "487")
            }
        }

        /// 486 from the callee: the caller reports busy with the status and exits 1; the callee
        /// did what `--reject 486` asked and exits 0, with nothing on stderr.
        @Test func busy() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1010", ["--reject", "486"])
            let caller = try H.dial(server, .wss, user: "1009", to: "1010", [])
            #expect(await caller.exitStatus(within: .seconds(10)) == 1, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(5)) == 0, "callee: \(callee.stderr)")
            #expect(callee.stderr.isEmpty, "callee: \(callee.stderr)")
            let ended = try #require(caller.events("ended").first, "\(caller.stdout)")
            #expect(H.field("reason", in: ended) == "busy")
            #expect(H.field("status", in: ended) == "486")
            #expect(caller.stderr.contains("busy (486)"))
        }

        /// A callee that requires SDES-SRTP refuses a plain RTP offer with 488; the caller exits 1.
        @Test func srtpRequiredButPlainOffered() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1018", ["--srtp", "sdes"])
            let caller = try H.dial(server, .wss, user: "1017", to: "1018", [])
            #expect(await caller.exitStatus(within: .seconds(10)) == 1, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(5)) == 1, "callee: \(callee.stderr)")
            let ended = try #require(caller.events("ended").first, "\(caller.stdout)")
            #expect(H.field("status", in: ended) == "488")
            #expect(caller.events("answered").isEmpty)
        }

        /// `dial --timeout` bounds the whole set-up, registration included: against a silent
        /// server the caller prints a `timeout` event and exits 3 after 2 s (not after the 10 s
        /// registration wait), with one line on stderr.
        @Test func dialTimeoutBoundsTheRegistrationToo() async throws {
            let silent = try KamailioPeer.LoadModeRunControlTests.SilentUDPPort()
            let clock = ContinuousClock()
            let start = clock.now
            let caller = try ToolProcess(
                "astra-call",
                ["dial", "--password", "x", "--server", "127.0.0.1:\(silent.port)", "--transport", "udp",
                 "--user", "1013", "--domain", "127.0.0.1", "--timeout", "2", "sip:1014@127.0.0.1"])
            #expect(await caller.exitStatus(within: .seconds(10)) == 3, "caller: \(caller.stderr)")
            let took = clock.now - start
            #expect(took >= .seconds(2) && took < .seconds(5), "\(took)")
            let timeout = try #require(caller.events("timeout").first, "\(caller.stdout)")
            #expect(H.field("waiting_for", in: timeout) == "registration", "\(timeout)")
            #expect(caller.stderr.split(separator: "\n").count == 1, "\(caller.stderr)")
        }

        /// Not answered within --timeout: CANCEL, "no_answer", exit 3; the callee sees the cancel.
        @Test func noAnswer() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1012", ["--after", "30"])
            let clock = ContinuousClock()
            let start = clock.now
            let caller = try H.dial(server, .wss, user: "1011", to: "1012", ["--timeout", "1.5"])
            #expect(await caller.exitStatus(within: .seconds(10)) == 3, "caller: \(caller.stderr)")
            // One bound for registration + INVITE (not 1.5 s after the INVITE).
            #expect(clock.now - start < .seconds(3), "\(clock.now - start)")
            #expect(await callee.exitStatus(within: .seconds(5)) == 1, "callee: \(callee.stderr)")
            #expect(
                caller.events("ended").first.flatMap { H.field("reason", in: $0) } == "no_answer", "\(caller.stdout)")
            #expect(callee.events("ended").first.flatMap { H.field("reason", in: $0) } == "cancelled")
        }
    }
}

extension KamailioPeer.AstraCallToolTests {
    /// 10 % loss each way on the UDP callee's SIP (to Kamailio) and on RTP in both directions,
    /// through ``LossyUDPRelay``s: the call still sets up (retransmissions) and each tone is
    /// still heard for most of the call.
    @Test func tenPercentLossStillConnectsWithRecognisableAudio() async throws {
        let server = try KamailioServer.start()
        defer { server.stop() }
        let calleeRTP = TestPorts.freeUDP(alignment: 2, span: 4), callerRTP = calleeRTP + 2
        let sip = try LossyUDPRelay(target: server.sipPort, loss: 0.1, seed: 1)
        let toCallee = try LossyUDPRelay(target: calleeRTP, loss: 0.1, seed: 2)
        let toCaller = try LossyUDPRelay(target: callerRTP, loss: 0.1, seed: 3)
        defer { for relay in [sip, toCallee, toCaller] { relay.stop() } }
        let calleeWAV = H.temporaryPath("loss-callee"), callerWAV = H.temporaryPath("loss-caller")
        defer { for p in [calleeWAV, callerWAV] { try? FileManager.default.removeItem(atPath: p) } }
        let calleeLine = [
            "--password", "astra1014", "--server", "127.0.0.1:\(sip.port)", "--transport", "udp",
            "--user", "1014", "--domain", "127.0.0.1",
        ]
        let callee = try ToolProcess(
            "astra-call",
            ["answer"] + calleeLine + [
                "--tone", "1000", "--record", calleeWAV, "--rtp-port", String(calleeRTP), "--sdp-port",
                String(toCallee.port),
            ])
        #expect(await callee.waitFor(.seconds(20)) { !callee.events("waiting").isEmpty }, "\(callee.stderr)")
        let caller = try H.dial(
            server, .wss, user: "1013", to: "1014",
            [
                "--tone", "440", "--record", callerWAV, "--duration", "4",
                "--rtp-port", String(callerRTP), "--sdp-port", String(toCaller.port),
            ])
        #expect(await caller.exitStatus(within: .seconds(40)) == 0, "caller: \(caller.stderr)")
        #expect(await callee.exitStatus(within: .seconds(20)) == 0, "callee: \(callee.stderr)")
        #expect(toCallee.dropped > 10 && toCaller.dropped > 10, "RTP dropped \(toCallee.dropped)/\(toCaller.dropped)")
        for process in [caller, callee] {
            let ended = try #require(process.events("ended").first, "\(process.stdout)")
            let loss = Double(H.field("loss_percent", in: ended) ?? "") ?? 0
            #expect(loss > 4 && loss < 20, "\(ended)")
        }
        #expect(try H.toneSeconds(callerWAV, frequency: 1000) >= 2.4)
        #expect(try H.toneSeconds(calleeWAV, frequency: 440) >= 2.4)
    }
}

extension KamailioPeer.AstraCallToolTests {
    /// `answer --echo --auto`: the caller hears its own tone back, twice in a row, then SIGINT
    /// stops the answering side with exit 0.
    @Test func echoAndAutoAnswer() async throws {
        let server = try KamailioServer.start()
        defer { server.stop() }
        let callee = try await H.callee(server, .udp, user: "1016", ["--echo", "--auto"])
        for round in 0..<2 {
            let recording = H.temporaryPath("echo-\(round)")
            defer { try? FileManager.default.removeItem(atPath: recording) }
            let caller = try H.dial(
                server, .tcp, user: "1015", to: "1016", ["--tone", "440", "--record", recording, "--duration", "2"])
            #expect(await caller.exitStatus(within: .seconds(15)) == 0, "caller: \(caller.stderr)")
            #expect(try H.toneSeconds(recording, frequency: 440) >= 1.4, "round \(round)")
        }
        // The caller exits on the BYE's 200 OK; the callee prints its "ended" after sending it:
        // wait for that line, not for the caller.
        #expect(await callee.waitFor(.seconds(10)) { callee.events("ended").count == 2 }, "\(callee.stdout)")
        callee.signal(SIGINT)
        #expect(await callee.exitStatus(within: .seconds(5)) == 0, "callee: \(callee.stderr)")
    }
}
