import AstraTestSupport
import Foundation
import Media
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// issue 9 interop: an independent WebRTC implementation in the role Asterisk `webrtc=yes`
    /// plays — rtpengine (userspace forwarding) behind Kamailio (`KAMAILIO_RTPENGINE`), bridging
    /// WebRTC (UDP/TLS/RTP/SAVPF, ICE, DTLS-SRTP, rtcp-mux) to plain RTP/AVP and back. Our
    /// WebRTC side does ICE and DTLS with rtpengine (its certificate checked against its
    /// `a=fingerprint`), the plain side sends and receives RTP through it, and each side hears
    /// the other's tone. Skipped when rtpengine is not installed, except under `CI=true`
    /// (``rtpengineIsThereInCI()`` fails: CI must run the interop).
    @Suite struct RTPEngineWebRTCTests {
        typealias H = CallToolHarness

        @Test func rtpengineIsThereInCI() {
            guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
            #expect(RTPEngineServer.binary != nil, "CI=true: \(RTPEngineServer.skipReason)")
        }

        /// How rtpengine meets our WebRTC side: a full ICE agent that picks the DTLS client role
        /// when it answers (its default), or ICE-lite (`a=ice-lite`: we are controlling and
        /// nominate, whichever side offered) preferring the DTLS server role (`--dtls-passive`).
        enum Engine: String, CaseIterable, Sendable {
            case full
            case liteAndPassive
        }

        /// WebRTC caller over WSS → rtpengine → plain RTP callee over UDP. rtpengine answers
        /// our actpass offer with `a=setup:active` (we are the DTLS server), or with
        /// `a=setup:passive` when it prefers passive (we are the client).
        @Test(.enabled(if: RTPEngineServer.binary != nil, RTPEngineServer.skipReason), arguments: Engine.allCases)
        func webRTCCallerToPlainCallee(engine: Engine) async throws {
            try await Self.call(
                engine, flags: "ICE-lite=backward",
                caller: (.wss, "1041", ["--media", "webrtc"]), callee: (.udp, "1042", ["--media", "rtp"]),
                webRTCRole: engine == .full ? "server" : "client")
        }

        /// Plain RTP caller over UDP → rtpengine → WebRTC callee over WSS: rtpengine offers
        /// UDP/TLS/RTP/SAVPF with ICE and `a=setup:actpass`; our answer takes `active` (DTLS
        /// client). The callee requires WebRTC, so a plain offer would have been refused (488).
        @Test(.enabled(if: RTPEngineServer.binary != nil, RTPEngineServer.skipReason), arguments: Engine.allCases)
        func plainCallerToWebRTCCallee(engine: Engine) async throws {
            try await Self.call(
                engine, flags: "ICE-lite=forward",
                caller: (.udp, "1043", ["--media", "rtp"]), callee: (.wss, "1044", ["--media", "webrtc"]),
                webRTCRole: "client")
        }

        /// The switch is on but nothing answers on the NG port (no rtpengine needed): the initial
        /// INVITE is refused at once with 503 instead of being relayed with SDP rtpengine never saw.
        @Test func relayDownAnswers503() async throws {
            let server = try KamailioServer.start(rtpengine: "127.0.0.1:\(try TestPorts.unboundUDP())")
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1046", ["--media", "rtp"])
            let caller = try H.dial(server, .wss, user: "1045", to: "1046", ["--media", "webrtc"])
            #expect(await caller.exitStatus(within: .seconds(10)) == 1, "caller: \(caller.stderr)")
            callee.signal(SIGINT)
            #expect(await callee.exitStatus(within: .seconds(5)) == 0, "callee: \(callee.stderr)")
            let ended = try #require(caller.events("ended").first, "\(caller.stdout)")
            #expect(H.field("status", in: ended) == "503")
            #expect(callee.events("incoming").isEmpty)
        }

        typealias Leg = (transport: TransportKind, user: String, options: [String])

        /// A 3 s call, caller 440 Hz, callee 1 kHz, through Kamailio + rtpengine. Exactly one leg
        /// is WebRTC (`--media webrtc`), the other plain (`--media rtp`). `flags`: the rtpengine
        /// flag that makes it ICE-lite towards the WebRTC leg (with ``Engine/liteAndPassive``).
        static func call(
            _ kind: Engine, flags: String, caller callerLeg: Leg, callee calleeLeg: Leg, webRTCRole: String
        ) async throws {
            let lite = kind == .liteAndPassive
            let engine = try RTPEngineServer.start(dtlsPassive: lite)
            defer { engine.stop() }
            let server = try KamailioServer.start(rtpengine: engine.control, rtpengineFlags: lite ? flags : nil)
            defer { server.stop() }
            let calleeWAV = H.temporaryPath("rtpe-callee"), callerWAV = H.temporaryPath("rtpe-caller")
            defer { for p in [calleeWAV, callerWAV] { try? FileManager.default.removeItem(atPath: p) } }
            // The WebRTC leg prints its SIP (--sip-trace, stderr) to show what rtpengine sent it.
            let webRTCFirst = callerLeg.options.contains("webrtc")
            let callee = try await H.callee(
                server, calleeLeg.transport, user: calleeLeg.user,
                calleeLeg.options + ["--tone", "1000", "--record", calleeWAV, "--after", "0.3"]
                    + (webRTCFirst ? [] : ["--sip-trace"]))
            let caller = try H.dial(
                server, callerLeg.transport, user: callerLeg.user, to: calleeLeg.user,
                callerLeg.options + ["--tone", "440", "--record", callerWAV, "--duration", "3"]
                    + (webRTCFirst ? ["--sip-trace"] : []))
            let context = { "rtpengine log:\n\(engine.log.suffix(3000))" }
            #expect(await caller.exitStatus(within: .seconds(20)) == 0, "caller: \(caller.stdout) \(context())")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stdout) \(context())")
            let (webRTC, plain) = webRTCFirst ? (caller, callee) : (callee, caller)
            // The WebRTC leg: ICE with rtpengine's candidate (a port of its range), DTLS-SRTP done
            // with rtpengine's certificate matching its a=fingerprint (checked by us).
            let answered = try #require(webRTC.events("answered").first, "\(webRTC.stdout)")
            #expect(H.field("media", in: answered) == "webrtc")
            #expect(H.field("srtp", in: answered) == "true")
            let ice = try #require(webRTC.events("ice_connected").first, "\(webRTC.stdout) \(context())")
            let remote = H.field("remote", in: ice) ?? ""
            let remotePort = UInt16(remote.split(separator: ":").last ?? "") ?? 0
            #expect(remote.hasPrefix("127.0.0.1:"), "\(ice)")
            #expect((engine.portMin...engine.portMin + 99).contains(remotePort), "ICE peer is not rtpengine: \(ice)")
            let dtls = try #require(webRTC.events("dtls_connected").first, "\(webRTC.stdout) \(context())")
            #expect(H.field("role", in: dtls) == webRTCRole)
            #expect(H.field("srtp_profile", in: dtls) == "AES_CM_128_HMAC_SHA1_80")
            // rtpengine's SDP to the WebRTC leg: ICE-lite only when asked.
            #expect(webRTC.stderr.contains("UDP/TLS/RTP/SAVPF"))
            #expect(webRTC.stderr.contains("a=ice-lite") == lite, "ICE-lite expected: \(lite)")
            // The plain leg: RTP/AVP, no ICE, no DTLS.
            let plainAnswered = try #require(plain.events("answered").first, "\(plain.stdout)")
            #expect(H.field("media", in: plainAnswered) == "rtp")
            #expect(H.field("srtp", in: plainAnswered) == "false")
            #expect(plain.events("ice_connected").isEmpty && plain.events("dtls_connected").isEmpty)
            for process in [caller, callee] {
                #expect(!process.events("first_rtp").isEmpty, "\(process.stdout)")
                let ended = try #require(process.events("ended").first, "\(process.stdout)")
                #expect(Int(H.field("packets_received", in: ended) ?? "") ?? 0 > 120, "\(ended)")
                #expect(Double(H.field("mos", in: ended) ?? "") ?? 0 > 4, "\(ended)")
            }
            #expect(H.field("reason", in: caller.events("ended")[0]) == "local_hangup")
            #expect(H.field("reason", in: callee.events("ended")[0]) == "remote_hangup")
            // rtpengine's side of it: ICE negotiated, our certificate accepted, SRTP keyed; one
            // leg over UDP/TLS/RTP/SAVPF, the other over RTP/AVP.
            let log = engine.log
            for line in [
                "ICE negotiated", "DTLS: Peer certificate accepted",
                "DTLS-SRTP successfully negotiated using AES_CM_128_HMAC_SHA1_80",
                "(audio over UDP/TLS/RTP/SAVPF)", "(audio over RTP/AVP)",
            ] {
                #expect(log.contains(line), "rtpengine log lacks \(line): \(log.suffix(3000))")
            }
            // Each side hears the other's tone, and not its own, for nearly the whole call.
            #expect(try H.toneSeconds(callerWAV, frequency: 1000) >= 2.5)
            #expect(try H.toneSeconds(callerWAV, frequency: 440) == 0)
            #expect(try H.toneSeconds(calleeWAV, frequency: 440) >= 2.5)
            #expect(try H.toneSeconds(calleeWAV, frequency: 1000) == 0)
        }
    }
}
