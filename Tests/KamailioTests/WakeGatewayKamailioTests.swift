import AstraTestSupport
import Foundation
import HTTPLite
import Testing
import WakeGateway

@testable import SIPTransport

extension KamailioPeer {
    /// Issue 10, server side: the wake gateway beside the real Kamailio (docs/wake-gateway.md).
    @Suite struct WakeGatewayKamailioTests {
        typealias H = CallToolHarness

        /// (a) A registered line that answers the qualify is rung straight through the gateway.
        @Test func registeredLineIsRungDirectly() async throws {
            try await WakeGatewayRig.with { (rig: WakeGatewayRig) async throws in
                let callee = try await H.callee(rig.server, .udp, user: "1032", ["--after", "0.1", "--duration", "0.5"])
                let caller = try H.dial(rig.server, .udp, user: "1031", to: "1032", ["--duration", "2"])
                #expect(await caller.exitStatus(within: .seconds(15)) == 0, "caller: \(caller.stderr)")
                #expect(await callee.exitStatus(within: .seconds(5)) == 0, "callee: \(callee.stderr)")
                let held = try #require(rig.events("call_held").first)
                #expect(held.bool("registration_live") == true)
                #expect(rig.events("qualify_result").first?.int("status") == 200)
                #expect(rig.events("released").first?.bool("direct") == true)
                #expect(rig.events("push_sent").isEmpty)
                #expect(caller.events("answered").count == 1)
                #expect(H.field("reason", in: caller.events("ended").first ?? "") == "remote_hangup")
            }
        }

        /// (b) Killed phone: no registration, token registered → push on the device connection,
        /// ack, the line registers over WSS, the held INVITE reaches the fresh contact, answered.
        /// The fresh REGISTER releases the call promptly: through one qualify of the new contact
        /// answered 200, not through a timer (a qualify timeout sends the decision back to wait
        /// for another REGISTER). The qualify timer is 2 s here so a loaded machine cannot turn
        /// the round trip through Kamailio and the phone into a timeout; the release must come
        /// within it.
        @Test func pushAckRegisterReleaseAnswer() async throws {
            let qualifyTimeout: Int64 = 2_000
            try await WakeGatewayRig.with(tune: {
                $0.apnsDelayMs = 30
                $0.qualifyTimeoutMs = qualifyTimeout
            }) { (rig: WakeGatewayRig) async throws in
                try await rig.registerToken(user: "1034")
                let device = try await APNsDevice(port: rig.ports.apnsDevice)
                defer { device.close() }
                #expect(await rig.waitFor("device_connected") != nil)  // the emulator accepted the hello
                let caller = try H.dial(rig.server, .udp, user: "1033", to: "1034", ["--duration", "1.5"])
                let line = try #require(await device.nextPush(.seconds(20)), "no push: \(rig.events) \(caller.stderr)")
                let push = try #require(H.field("push_id", in: line))
                let callID = try #require(H.field("call_id", in: line))
                #expect(line.contains(#""push_type":"voip""#) && line.contains(#""topic":"com.example.astra.voip""#))
                #expect(line.contains(#""priority":10,"expiration":0"#) && line.contains(#""caller":"1033""#))
                #expect(try await rig.ack(push) == 200)
                #expect(try await rig.ack(push) == 404)  // single use: a replay finds nothing
                #expect(try await rig.ack("p-unknown") == 404)
                let callee = try await H.callee(rig.server, .wss, user: "1034", ["--after", "0.1", "--duration", "0.8"])
                #expect(await caller.exitStatus(within: .seconds(15)) == 0, "caller: \(caller.stderr)")
                #expect(await callee.exitStatus(within: .seconds(5)) == 0, "callee: \(callee.stderr)")
                let incoming = try #require(callee.events("incoming").first, "\(callee.stdout)")
                #expect(H.field("call_id", in: incoming) == callID)
                let released = try #require(rig.events("released").first, "\(rig.events)")
                #expect(released.bool("direct") == false)
                #expect(released.string("push_id") == String(push.prefix(17)) + "…")  // events show the selector only
                #expect(rig.events("failover").isEmpty)
                let pushSent = try #require(rig.instant(of: "push_sent"))
                let registerSeen = try #require(
                    rig.recorded.withLock {
                        $0.last {
                            $0.1.name == "register_seen" && $0.1.string("user") == "1034" && ($0.1.int("expires") ?? 0) > 0
                        }?.0
                    })
                let releasedAt = try #require(rig.instant(of: "released"))
                let ringing = try #require(rig.instant(of: "ringing"))
                #expect(pushSent <= registerSeen, "the push goes out before the woken phone's fresh REGISTER")
                print(
                    "wake-gateway: fresh REGISTER → released \(ms(registerSeen, releasedAt)) ms, released → 180 \(ms(releasedAt, ringing)) ms, push → ack \(rig.events("ack").first?.int("since_push_ms") ?? -1) ms"
                )
                let qualifies = rig.recorded.withLock { $0.filter { $0.1.name == "qualify_result" && $0.0 >= registerSeen } }
                #expect(qualifies.map { $0.1.int("status") } == [200], "one qualify of the fresh contact: \(rig.events)")
                #expect(qualifies.allSatisfy { $0.0 <= releasedAt })
                #expect(ms(registerSeen, releasedAt) < Double(qualifyTimeout))
                #expect(caller.events("answered").count == 1)
            }
        }

        /// (c) Dead phone: push delivered, never acked → the caller gets 480 once the ack window
        /// ends. The window is never cut short (since the INVITE, at the gateway); its end is
        /// bounded from when the gateway armed the timer (``ArmingClock``): ack window + 1 s, the
        /// slack for a loaded machine (one core busy per test process beside Kamailio), far
        /// below a second window or Timer B (32 s). At the caller, 100 Trying → 480 also
        /// includes Kamailio relaying the INVITE and the push exchange: ack window + 2 s.
        @Test func noAckFailsOverWithinTheAckWindow() async throws {
            let ackWindow: Int64 = 1_000
            try await WakeGatewayRig.with(tune: { $0.ackWindowMs = ackWindow }) { (rig: WakeGatewayRig) async throws in
                try await rig.registerToken(user: "1036")
                let device = try await APNsDevice(port: rig.ports.apnsDevice)
                defer { device.close() }
                let caller = try H.dial(rig.server, .udp, user: "1035", to: "1036", [])
                #expect(await caller.exitStatus(within: .seconds(10)) == 1, "caller: \(caller.stderr)")
                #expect(await device.nextPush() != nil)
                let failover = try #require(rig.events("failover").first, "\(rig.events)")
                #expect(failover.string("reason") == "no_ack")
                let atGateway = try #require(failover.int("since_invite_ms"))
                let ended = try #require(caller.events("ended").first)
                #expect(H.field("status", in: ended) == "480")
                let trying = Int(H.field("t", in: caller.events("trying").first ?? "") ?? "") ?? 0
                let endedT = Int(H.field("t", in: ended) ?? "") ?? 0
                print(
                    "wake-gateway: failover at gateway \(atGateway) ms after the INVITE; caller 100 Trying → 480 \(endedT - trying) ms (ack window \(ackWindow) ms)"
                )
                #expect(atGateway >= ackWindow)
                let failedOverAt = try #require(rig.instant(of: "failover"))
                let armed = try #require(
                    rig.clock.armed.first {  // sleep(for:) reads the clock just before we do
                        .milliseconds(ackWindow) - $0.duration < .milliseconds(50) && $0.duration <= .milliseconds(ackWindow)
                            && $0.at < failedOverAt
                    },
                    "no ack-window timer armed: \(rig.clock.armed.map(\.duration))")
                let sinceArmed = ms(armed.at, failedOverAt)
                print("wake-gateway: failover \(sinceArmed) ms after the ack-window timer was armed")
                #expect(sinceArmed >= Double(ackWindow) && sinceArmed <= Double(ackWindow + 1_000), "\(sinceArmed) ms")
                // Upper bound only: the caller logs its 100 Trying when it gets to it, so its own
                // interval can come out a few ms short of the window the gateway kept.
                #expect(Int64(endedT - trying) <= ackWindow + 2_000, "\(endedT - trying) ms")
                #expect(rig.events("released").isEmpty)
            }
        }

        /// (d) The caller hangs up while the INVITE is held: 487 to the caller, nothing released.
        @Test func cancelWhileHeld() async throws {
            try await WakeGatewayRig.with(tune: { $0.ackWindowMs = 5_000 }) { (rig: WakeGatewayRig) async throws in
                try await rig.registerToken(user: "1038")
                let device = try await APNsDevice(port: rig.ports.apnsDevice)
                defer { device.close() }
                #expect(await rig.waitFor("device_connected") != nil)
                let caller = try H.dial(rig.server, .udp, user: "1037", to: "1038", ["--timeout", "0.6"])
                #expect(await caller.exitStatus(within: .seconds(10)) == 3, "caller: \(caller.stderr)")
                #expect(await rig.waitFor("call_ended") != nil)
                let cancelled = try #require(rig.events("cancelled").first, "\(rig.events)")
                #expect(cancelled.string("phase") == "held")
                #expect(rig.events("call_ended").first?.int("status") == 487)
                #expect(rig.events("released").isEmpty)
                #expect(rig.events("failover").isEmpty)
                // The ack after the caller left is accepted, says the call is gone, and releases nothing.
                // No settle delay: the CANCEL disarmed the decision's timer (before `call_ended`), so
                // the ack is the only input left, and the gateway answers it only after the decision
                // stepped on it (a release would be emitted inside that step): its 200 is the signal.
                let line = try #require(await device.nextPush(), "no push: \(rig.events)")
                let push = try #require(H.field("push_id", in: line))
                let ack = try await rig.http("POST", "/api/v1/users/voip-push-ack", #"{"push_id":"\#(push)"}"#)
                #expect(ack.status == 200)
                #expect(String(decoding: ack.body, as: UTF8.self).contains(#""call_active":false"#))
                #expect(rig.events("ack").count == 1)
                #expect(rig.events("released").isEmpty)
                #expect(H.field("reason", in: caller.events("ended").first ?? "") == "no_answer")
            }
        }

        /// A UDP line whose REGISTER carries RFC 8599 `pn-*` for the rig's device token.
        static func rfc8599Line(user: String, _ rig: WakeGatewayRig) -> String {
            """
            {"v":1,"user":"\(user)","password":"astra\(user)","domain":"127.0.0.1","server":"127.0.0.1:\(rig.server.sipPort)",\
            "transport":"udp","push_provider":"apns","push_token":"\(WakeGatewayRig.token)",\
            "push_topic":"ABCDE12345.com.example.astra.voip"}
            """
        }

        /// (e) RFC 8599: the line registers with pn-provider/pn-prid/pn-param; the gateway pushes
        /// with them (no token endpoint). An unknown provider is refused with 555.
        @Test func rfc8599RegistrationIsUsedAndUnknownProviderGets555() async throws {
            try await WakeGatewayRig.with(tune: { $0.ackWindowMs = 800 }) { (rig: WakeGatewayRig) async throws in
                let line = Self.rfc8599Line(user: "1040", rig)
                let (status, stdout, stderr) = try await ToolProcess.run("astra-register", ["--line", "-"], stdin: line)
                #expect(status == 0, "\(stdout) \(stderr)")
                let seen = try #require(await rig.waitFor("register_seen"))
                #expect(seen.bool("pn_used") == true)
                #expect(seen.string("pn_provider") == "apns")
                let device = try await APNsDevice(port: rig.ports.apnsDevice)
                defer { device.close() }
                #expect(await rig.waitFor("device_connected") != nil)
                let caller = try H.dial(rig.server, .udp, user: "1039", to: "1040", [])
                let push = try #require(await device.nextPush(), "\(rig.events)")
                #expect(push.contains(#""topic":"com.example.astra.voip""#))
                // The device can read the push before the gateway's push exchange records it.
                #expect(await rig.waitFor("push_sent")?.string("token_source") == "rfc8599")
                #expect(await caller.exitStatus(within: .seconds(10)) == 1)

                // RFC 8030 web push (RFC 8599 §11) is a provider the gateway cannot push through.
                let webpush = line.replacingOccurrences(of: #""push_provider":"apns""#, with: #""push_provider":"webpush""#)
                    .replacingOccurrences(of: "1040", with: "1041")
                let (refused, out555, err555) = try await ToolProcess.run("astra-register", ["--line", "-"], stdin: webpush)
                #expect(refused == 1, "\(out555) \(err555)")
                #expect((out555 + err555).contains("555"), "\(out555) \(err555)")
            }
        }
    
        /// (f) SIP trust: a REGISTER with `pn-*` (an attacker's device token) and an INVITE sent
        /// straight to the gateway's port, not through Kamailio, are dropped unanswered and counted —
        /// no binding learnt, no call held, no push; the same user registering through Kamailio
        /// (digest-authenticated) is then woken on its own device, never the attacker's.
        @Test func untrustedSourcesCannotRegisterOrPush() async throws {
            try await WakeGatewayRig.with(tune: { $0.ackWindowMs = 800 }) { (rig: WakeGatewayRig) async throws in
                let attackerToken = String(repeating: "ee", count: 32)
                let attacker = try UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!, log: .discard)
                let gatewayAddress = SocketAddress(ip: "127.0.0.1", port: rig.ports.sip)!
                let via = "SIP/2.0/UDP 127.0.0.1:\(attacker.local.port);branch="
                let register = """
                    REGISTER sip:127.0.0.1 SIP/2.0\r\nVia: \(via)z9hG4bK-evil-r\r\nMax-Forwards: 70\r\n\
                    From: <sip:1042@127.0.0.1>;tag=e1\r\nTo: <sip:1042@127.0.0.1>\r\nCall-ID: evil-reg\r\n\
                    CSeq: 1 REGISTER\r\nContact: <sip:1042@127.0.0.1:\(attacker.local.port);pn-provider=apns;\
                    pn-prid=\(attackerToken);pn-param=ABCDE12345.com.example.astra.voip>;expires=300\r\n\
                    Content-Length: 0\r\n\r\n
                    """
                let invite = """
                    INVITE sip:1042@127.0.0.1 SIP/2.0\r\nVia: \(via)z9hG4bK-evil-i\r\nMax-Forwards: 70\r\n\
                    From: <sip:1099@127.0.0.1>;tag=e2\r\nTo: <sip:1042@127.0.0.1>\r\nCall-ID: evil-inv\r\n\
                    CSeq: 1 INVITE\r\nContact: <sip:1099@127.0.0.1:\(attacker.local.port)>\r\nContent-Length: 0\r\n\r\n
                    """
                try await attacker.send(Array(register.utf8), to: gatewayAddress)
                try await attacker.send(Array(invite.utf8), to: gatewayAddress)
                // Positive condition: both were seen and dropped (the gateway handles messages in order).
                #expect(await eventually(timeout: .seconds(10)) { await rig.gateway.counters["sip_untrusted"] == 2 })
                #expect(rig.events("register_seen").isEmpty)
                #expect(rig.events("call_held").isEmpty)
                #expect(await rig.gateway.tokens.registration(for: "1042") == nil)

                // The same user through Kamailio: the binding and its token are learnt, the push goes
                // to the phone's own device.
                let evilDevice = try await APNsDevice(port: rig.ports.apnsDevice, token: attackerToken)
                defer { evilDevice.close() }
                let device = try await APNsDevice(port: rig.ports.apnsDevice)
                defer { device.close() }
                #expect(await eventually { rig.events("device_connected").count == 2 })
                let line = Self.rfc8599Line(user: "1042", rig)
                let (status, stdout, stderr) = try await ToolProcess.run("astra-register", ["--line", "-"], stdin: line)
                #expect(status == 0, "\(stdout) \(stderr)")
                #expect(try #require(await rig.waitFor("register_seen")).bool("pn_used") == true)
                let caller = try H.dial(rig.server, .udp, user: "1043", to: "1042", [])
                let push = try #require(await device.nextPush(), "\(rig.events)")
                #expect(push.contains(#""caller":"1043""#))
                #expect(await caller.exitStatus(within: .seconds(10)) == 1)  // never acked: failover 480
                #expect(evilDevice.lines.withLock { $0.isEmpty })
                #expect(await rig.gateway.counters["sip_untrusted"] == 2)
                await attacker.close()
            }
        }
}
}
