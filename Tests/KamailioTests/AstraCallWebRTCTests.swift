import Foundation
import Media
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// issue 9 "Must show": astra-call ↔ astra-call with WebRTC media (ICE + DTLS-SRTP,
    /// UDP/TLS/RTP/SAVPF) through the project's Kamailio, and a forged `a=fingerprint`.
    @Suite struct AstraCallWebRTCTests {
        typealias H = CallToolHarness

        /// WSS caller ↔ UDP callee, `--media webrtc` on both: ICE and DTLS complete on both
        /// sides (the offerer is the DTLS server: it offered actpass, the answer says active),
        /// and each side hears the other's tone — and not its own — for most of the 3 s call.
        @Test func twoWayAudioWSSToUDP() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let calleeWAV = H.temporaryPath("webrtc-callee"), callerWAV = H.temporaryPath("webrtc-caller")
            defer { for p in [calleeWAV, callerWAV] { try? FileManager.default.removeItem(atPath: p) } }
            let callee = try await H.callee(
                server, .udp, user: "1022",
                ["--media", "webrtc", "--tone", "1000", "--record", calleeWAV, "--after", "0.3"])
            let caller = try H.dial(
                server, .wss, user: "1021", to: "1022",
                ["--media", "webrtc", "--tone", "440", "--record", callerWAV, "--duration", "3"])
            #expect(await caller.exitStatus(within: .seconds(20)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stderr)")
            for (process, role) in [(caller, "server"), (callee, "client")] {
                let answered = try #require(process.events("answered").first, "\(process.stdout)")
                #expect(H.field("media", in: answered) == "webrtc")
                #expect(H.field("srtp", in: answered) == "true")
                let ice = try #require(process.events("ice_connected").first, "\(process.stdout)")
                #expect(H.field("remote", in: ice)?.hasPrefix("127.0.0.1:") == true)
                let dtls = try #require(process.events("dtls_connected").first, "\(process.stdout)")
                #expect(H.field("role", in: dtls) == role)
                #expect(H.field("srtp_profile", in: dtls) == "AES_CM_128_HMAC_SHA1_80")
                #expect(!process.events("first_rtp").isEmpty)
                let ended = try #require(process.events("ended").first, "\(process.stdout)")
                #expect(Int(H.field("packets_received", in: ended) ?? "") ?? 0 > 120, "\(ended)")
                #expect(Double(H.field("mos", in: ended) ?? "") ?? 0 > 4, "\(ended)")
            }
            #expect(H.field("reason", in: caller.events("ended")[0]) == "local_hangup")
            #expect(H.field("reason", in: callee.events("ended")[0]) == "remote_hangup")
            #expect(try H.toneSeconds(callerWAV, frequency: 1000) >= 2.5)
            #expect(try H.toneSeconds(callerWAV, frequency: 440) == 0)
            #expect(try H.toneSeconds(calleeWAV, frequency: 440) >= 2.5)
            #expect(try H.toneSeconds(calleeWAV, frequency: 1000) == 0)
        }

        /// issue 9 ICE: both sides gather through a real STUN server (Debian's coturn) before
        /// their SDP goes out, and the caller restarts ICE by re-INVITE 1 s into the call
        /// (`--ice-restart-after`). Gathering waits for coturn's answer, not the 500 ms timeout
        /// (on loopback the mapped address is the host candidate itself, so no srflx is
        /// signalled: RFC 8445 §5.1.3 drops it as redundant); the restart completes on both
        /// sides, DTLS is not redone, and both tones last the whole 3 s call through it.
        @Test func stunGatheringAndICERestartMidCall() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let stun = try await CoturnServer.start()
            defer { stun.stop() }
            let calleeWAV = H.temporaryPath("restart-callee"), callerWAV = H.temporaryPath("restart-caller")
            defer { for p in [calleeWAV, callerWAV] { try? FileManager.default.removeItem(atPath: p) } }
            let callee = try await H.callee(
                server, .udp, user: "1092",
                [
                    "--media", "webrtc", "--stun", stun.hostPort, "--tone", "1000", "--record", calleeWAV,
                    "--after", "0.3",
                ])
            let caller = try H.dial(
                server, .udp, user: "1091", to: "1092",
                [
                    "--media", "webrtc", "--stun", stun.hostPort, "--tone", "440", "--record", callerWAV,
                    "--ice-restart-after", "1", "--duration", "3",
                ])
            #expect(await caller.exitStatus(within: .seconds(20)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stderr)")
            for (process, byPeer) in [(caller, "false"), (callee, "true")] {
                let gathered = try #require(process.events("ice_gathered").first, "\(process.stdout)")
                #expect(Double(H.field("waited_ms", in: gathered) ?? "") ?? 999 < 400, "\(gathered)")
                #expect(Int(H.field("host", in: gathered) ?? "") ?? 0 >= 1, "\(gathered)")
                let restarted = process.events("ice_restarted")
                #expect(restarted.count == 1, "\(process.stdout)")
                let restart = try #require(restarted.first)
                #expect(H.field("by_peer", in: restart) == byPeer)
                #expect(Double(H.field("ms", in: restart) ?? "") ?? 999 < 500, "\(restart)")
                #expect(process.events("dtls_connected").count == 1)
                #expect(process.events("held").isEmpty)
            }
            #expect(try H.toneSeconds(callerWAV, frequency: 1000) >= 2.5)
            #expect(try H.toneSeconds(calleeWAV, frequency: 440) >= 2.5)
        }

        /// A man in the middle rewrites `a=fingerprint` in the SDP (in the INVITE's offer, or in
        /// the 200's answer) between Kamailio and the callee. The side whose peer certificate
        /// no longer matches ends the call: exit 5, one stderr line naming the mismatch, BYE;
        /// the other side sees the hang-up; neither hangs. The callee answers without
        /// `--media` (auto: it follows the UDP/TLS/RTP/SAVPF offer).
        @Test(arguments: ["offer", "answer"]) func forgedFingerprintFailsTheCall(forge: String) async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let forgeOffer = forge == "offer"
            let mitm = try LossyUDPRelay(target: server.sipPort, loss: 0, seed: 1) { datagram, toKamailio in
                toKamailio != forgeOffer ? Self.forgeFingerprint(datagram) : datagram
            }
            defer { mitm.stop() }
            let callee = try ToolProcess(
                "astra-call",
                [
                    "answer", "--password", "astra1024", "--server", "127.0.0.1:\(mitm.port)", "--transport", "udp",
                    "--user", "1024", "--domain", "127.0.0.1", "--tone", "1000",
                ])
            #expect(await callee.waitFor(.seconds(10)) { !callee.events("waiting").isEmpty }, "\(callee.stderr)")
            let caller = try H.dial(server, .wss, user: "1023", to: "1024", ["--media", "webrtc", "--tone", "440"])
            let (victim, peer) = forgeOffer ? (callee, caller) : (caller, callee)
            #expect(await victim.exitStatus(within: .seconds(15)) == 5, "\(forge): \(victim.stdout) \(victim.stderr)")
            #expect(
                await peer.exitStatus(within: .seconds(10)) != nil,
                "the far end hung: \(peer.stdout)\nvictim: \(victim.stdout) \(victim.stderr)")
            let lines = victim.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("fingerprint"), "\(victim.stderr)")
            #expect(lines.first?.hasPrefix("astra-call: call ended: media failed: DTLS-SRTP failed") == true)
            let ended = try #require(victim.events("ended").first, "\(victim.stdout)")
            #expect(H.field("reason", in: ended) == "media_failed")
            #expect(victim.events("dtls_connected").isEmpty)
            // The BYE reached the far end: it reports the remote hang-up.
            let far = try #require(peer.events("ended").first, "\(peer.stdout)")
            #expect(H.field("reason", in: far) == "remote_hangup", "\(far)")
            #expect(H.field("media", in: try #require(peer.events("answered").first)) == "webrtc")
        }

        /// A callee that requires WebRTC (`--media webrtc`) refuses a plain RTP offer with 488;
        /// both exit 1 and nothing reports ICE or DTLS.
        @Test func webRTCRequiredButPlainOffered() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1026", ["--media", "webrtc"])
            let caller = try H.dial(server, .wss, user: "1025", to: "1026", [])
            #expect(await caller.exitStatus(within: .seconds(10)) == 1, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(5)) == 1, "callee: \(callee.stderr)")
            let ended = try #require(caller.events("ended").first, "\(caller.stdout)")
            #expect(H.field("status", in: ended) == "488")
            #expect(caller.events("answered").isEmpty && callee.events("dtls_connected").isEmpty)
        }

        /// Replaces the first two hex digits of an SDP `a=fingerprint:sha-256` value (same
        /// length, so Content-Length stays right).
        static func forgeFingerprint(_ datagram: [UInt8]) -> [UInt8] {
            var text = String(decoding: datagram, as: UTF8.self)
            guard let range = text.range(of: "a=fingerprint:sha-256 ") else { return datagram }
            let start = range.upperBound
            let end = text.index(start, offsetBy: 2)
            let old = text[start..<end]
            text.replaceSubrange(start..<end, with: old == "00" ? "FF" : "00")
            return Array(text.utf8)
        }
    }
}
