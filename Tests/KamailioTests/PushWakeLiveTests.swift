import Foundation
import PushKitEmu
import PushKitLive
import Synchronization
import Testing

extension KamailioPeer {
    /// Issue 10 "Must show": each live scenario end to end — real Kamailio (KAMAILIO_WAKE_GATEWAY),
    /// a real astra-wakegw process with its APNs emulator, an in-process caller over UDP and the
    /// live phone over WSS — passes the rule checker with the correct policy and fails, naming the
    /// rule, with the naive one.
    @Suite struct PushWakeLiveTests {
        static func infrastructure(ackWindowMs: Int64 = 2_000, goneNotice: Bool = false) async throws
            -> LiveInfrastructure
        {
            var settings = LiveInfrastructure.GatewaySettings()
            settings.ackWindowMs = ackWindowMs
            settings.goneNotice = goneNotice
            return try await LiveInfrastructure.start(
                wakegw: ToolProcess.binDirectory + "/astra-wakegw",
                kamailioScript: KamailioServer.repoRoot + "/scripts/kamailio.sh", settings: settings)
        }

        static func run(
            _ name: String, _ policy: PolicyChoice, rfc8599: Bool = false, platform: DevicePlatform = .ios
        ) async throws -> LiveReport {
            try await run(name, rfc8599: rfc8599, platform: platform, expectPass: policy == .correct) {
                await LiveRunner.run($0, policy: policy, environment: $1)
            }
        }

        /// Starts Kamailio + astra-wakegw for scenario `name` (with `--gone-notice` when the scenario
        /// asks for it, as the tool does) and runs `body`; the timeline and gateway log are printed
        /// when a run expected to pass does not.
        static func run(
            _ name: String, rfc8599: Bool = false, platform: DevicePlatform = .ios, expectPass: Bool,
            _ body: (LiveScenario, LiveEnvironment) async -> LiveReport
        ) async throws -> LiveReport {
            let named = try #require(LiveScenarios.named(name))
            let infrastructure = try await infrastructure(goneNotice: named.goneNotice)
            defer { infrastructure.stop() }
            var environment = infrastructure.environment
            environment.rfc8599 = rfc8599
            environment.platform = platform
            let scenario = try #require(LiveScenarios.named(name, ackWindowMs: environment.ackWindowMs))
            let report = await body(scenario, environment)
            lastGatewayLog.withLock { $0 = infrastructure.gatewayLog }
            if !report.passed && expectPass {
                print(report.timeline.map { $0.event.jsonLine(t: $0.t) }.joined(separator: "\n"))
                print(infrastructure.gatewayLog)
            }
            return report
        }

        /// The gateway's event log of the last run (tests that read the gateway's side).
        static let lastGatewayLog = Mutex("")

        @Test(arguments: LiveScenarios.names) func correctPolicyPasses(scenario: String) async throws {
            let report = try await Self.run(scenario, .correct)
            #expect(report.infrastructureError == nil, "\(report.infrastructureError ?? "")")
            #expect(report.violations.isEmpty, "\(report.violations)")
            #expect(report.outcomes == report.expected, "\(report.outcomes)")
            #expect(report.passed)
            // Every call that failed over did so within the ack window + 100 ms (a dead binding's
            // qualify fails at once on Kamailio's non-2xx, not at the qualify timer), and the
            // failover reason came from the gateway's Reason header.
            for ms in report.failoverMs { #expect(ms <= 2_000 + 100, "failover \(ms) ms") }
            // Every push went to APNs' provider API over HTTP/2 (the emulator's listener answered
            // it), on one connection: at most one push opened it.
            let gateway = Self.lastGatewayLog.withLock { $0 }.split(separator: "\n")
            let pushes = gateway.filter { $0.contains("\"event\":\"push_sent\"") }
            let requests = gateway.filter { $0.contains("\"event\":\"provider_request\"") && $0.contains("\"api\":\"apns\"") }
            #expect(pushes.count == requests.count, "\(pushes) \(requests)")
            #expect(pushes.allSatisfy { $0.contains("\"provider\":\"apns\"") })
            #expect(pushes.filter { $0.contains("\"new_connection\":true") }.count <= 1, "\(pushes)")
            let finals = report.timeline.filter { $0.event.name == "caller_final" }
            #expect(finals.count == report.failoverMs.count)
            for final in finals {
                // A declined placeholder's INVITE gets the phone's 603; every other failover is the
                // gateway's 480 for a phone that never acked.
                let expected = scenario == "decline-before-invite" ? "\"status\":603" : "wake no_ack"
                #expect(final.event.jsonLine(t: final.t).contains(expected), "\(final.event.jsonLine(t: final.t))")
            }
            if scenario == "cancel-before-wake" {
                // The ack answer says the caller left: the placeholder ends at once, remoteEnded.
                let lines = report.timeline.map { $0.event.jsonLine(t: $0.t) }
                #expect(lines.contains { $0.contains("\"ack_response\"") && $0.contains("\"call_active\":false") })
                #expect(lines.contains { $0.contains("\"callkit_end\"") && $0.contains("remote") }, "\(lines)")
            }
            if scenario == "cancel-after-ack" {
                // The ack said the call was up; the caller left after it; the gone notice (INVITE +
                // CANCEL to the fresh contact) ended the claimed placeholder remoteEnded, well
                // before its placeholder timeout, and nothing connected.
                let lines = report.timeline.map { $0.event.jsonLine(t: $0.t) }
                #expect(lines.contains { $0.contains("\"ack_response\"") && $0.contains("\"call_active\":true") })
                #expect(lines.contains { $0.contains("\"cancel_received\"") }, "\(lines)")
                #expect(lines.contains { $0.contains("\"callkit_end\"") && $0.contains("remote") }, "\(lines)")
                #expect(!lines.contains { $0.contains("\"callkit_end\"") && $0.contains("\"failed\"") })
                #expect(report.callerLeftToEndMs.count == 1)
                // 1 s of emulated network start before the REGISTER, then the notice in ms.
                let ms = report.callerLeftToEndMs.first ?? 99_999
                #expect(ms < 2_000, "caller left → placeholder ended \(ms) ms")
                let gateway = Self.lastGatewayLog.withLock { $0 }
                #expect(gateway.contains("\"gone_notice\""), "\(gateway)")
                #expect(gateway.contains("\"gone_notice_done\""))
                print("cancel-after-ack: caller left → placeholder ended \(ms) ms")
                for line in gateway.split(separator: "\n") where line.contains("gone_notice") { print(line) }
            }
        }

        /// cancel-after-ack with only the `ignoreCallerLeft` bug: the phone claims its placeholder
        /// with the notice's INVITE and ignores the CANCEL — R5 `caller_left_still_ringing`, and
        /// nothing else.
        @Test func ignoringTheGoneNoticeBreaksR5() async throws {
            let report = try await Self.run("cancel-after-ack", expectPass: false) {
                await LiveRunner.run($0, faults: .ignoreCallerLeft, environment: $1)
            }
            #expect(report.infrastructureError == nil, "\(report.infrastructureError ?? "")")
            #expect(!report.passed)
            #expect(report.rulesBroken == [.r5], "\(report.rulesBroken)")
            #expect(report.violations.map(\.kind) == [.callerLeftStillRinging], "\(report.violations)")
            #expect(report.summary.contains("broke R5"), "\(report.summary)")
        }

        /// Token rotation, checked from both ends: the correct app uploads the rotated token and
        /// the push reaches it (APNs `delivered`); an app that ignores rotations leaves the server
        /// with the retired token, APNs answers 410 Unregistered, and the gateway fails the call
        /// over at once (no ack window wasted) — the phone is never woken.
        @Test func rotatedTokenMustBeUploaded() async throws {
            let good = try await Self.run("token-rotated", .correct)
            #expect(good.passed, "\(good.summary)")
            let goodLog = Self.lastGatewayLog.withLock { $0 }
            let lines = good.timeline.map { $0.event.jsonLine(t: $0.t) }
            let issued = try #require(lines.firstIndex { $0.contains("\"token_issued\"") }, "\(lines)")
            #expect(lines[issued...].contains { $0.contains("\"token_uploaded\"") }, "\(lines)")
            // Over HTTP/2: APNs (the emulator) accepted the push to the new token and delivered it.
            #expect(goodLog.contains("\"apns\":\"accepted\""), "\(goodLog)")
            #expect(goodLog.contains("\"delivery\":\"delivered\""), "\(goodLog)")

            let stale = try await Self.run("token-rotated", expectPass: false) {
                await LiveRunner.run($0, faults: .ignoreTokenRotation, environment: $1)
            }
            let staleLog = Self.lastGatewayLog.withLock { $0 }
            #expect(stale.infrastructureError == nil, "\(stale.infrastructureError ?? "")")
            #expect(stale.outcomes == [.failedOver], "\(stale.outcomes)")
            #expect(stale.violations.isEmpty, "\(stale.violations)")
            #expect(staleLog.contains("rejected:Unregistered"), "\(staleLog)")
            // The emulator's 410 carried a timestamp; the gateway dropped the token it had.
            #expect(staleLog.contains("\"event\":\"token_dropped\""), "\(staleLog)")
            #expect(staleLog.contains("\"reason\":\"Unregistered\""))
            #expect((stale.failoverMs.first ?? 9_999) < 500, "failover \(stale.failoverMs)")
            #expect(!stale.timeline.contains { $0.event.name == "apns_delivered" })
        }

        /// Answer tapped on the placeholder before the INVITE: the tap comes first, the action is
        /// fulfilled only after the 200 OK, and the call connects (no second call, no delay).
        @Test func answerBeforeInviteIsFulfilledAfterTheOK() async throws {
            let report = try await Self.run("answer-before-invite", .correct)
            #expect(report.passed, "\(report.summary)")
            let names = report.timeline.map(\.event.name)
            let tap = try #require(names.firstIndex(of: "user_answer"))
            let invite = try #require(names.firstIndex(of: "invite_received"))
            let ok = try #require(names.firstIndex(of: "ok_sent"))
            let fulfilled = try #require(names.firstIndex(of: "answer_fulfilled"))
            #expect(tap < invite && ok < fulfilled, "\(names)")
            #expect(names.filter { $0 == "callkit_report" }.count == 1, "\(names)")
        }

        /// The rules the naive client breaks for real in each scenario (the virtual emulator's
        /// verdicts for the same situations: R1 networking before the report everywhere it is
        /// woken; R5 duplicate session / early fulfil / placeholder never ended where it rings, and
        /// still ringing after the ack answer said the caller left).
        static let naiveRules: [String: Set<RuleID>] = [
            "killed": [.r1, .r5], "background": [.r1, .r5], "locked": [.r1, .r5], "offline": [.r1],
            "reconnect": [.r1], "dead-phone": [.r1], "cancel-before-wake": [.r1, .r5],
            "cancel-after-ack": [.r1, .r5], "answer-before-invite": [.r1, .r5], "decline-before-invite": [.r1, .r5],
            "token-rotated": [.r1, .r5],
        ]

        @Test(arguments: LiveScenarios.names) func naivePolicyFailsNamingTheRule(scenario: String) async throws {
            let report = try await Self.run(scenario, .naive)
            #expect(report.infrastructureError == nil, "\(report.infrastructureError ?? "")")
            #expect(!report.passed)
            let expected = try #require(Self.naiveRules[scenario])
            #expect(expected.isSubset(of: Set(report.rulesBroken)), "\(report.rulesBroken)")
            #expect(report.verdictLine.contains("\"ok\":false"))
            #expect(report.summary.contains("broke R1"), "\(report.summary)")
        }

        /// Killed phone: the caller hears ringing (180 after the push wake) and the call is
        /// answered with audio both ways — the 440 Hz tone the caller sends is in the phone's
        /// recording, the phone's 1 kHz tone in the caller's (Goertzel, as the astra-call tests).
        @Test func killedPhoneRingsAndAnswersWithTwoWayAudio() async throws {
            let report = try await Self.run("killed", .correct)
            #expect(report.passed, "\(report.summary)")
            #expect(report.pushToRingMs.count == 1)
            #expect((report.pushToRingMs.first ?? 9_999) < 300, "push-to-ring \(report.pushToRingMs)")
            let names = report.timeline.map(\.event.name)
            let ringing = try #require(names.firstIndex(of: "caller_ringing"))
            let connected = try #require(names.firstIndex(of: "call_connected"))
            #expect(names.firstIndex(of: "ack_sent")! < ringing)
            #expect(ringing < connected)
            #expect((report.phoneHeardSeconds ?? 0) >= 1.0, "phone heard \(report.phoneHeardSeconds ?? 0) s of 440 Hz")
            #expect(
                (report.callerHeardSeconds ?? 0) >= 1.0, "caller heard \(report.callerHeardSeconds ?? 0) s of 1 kHz")
            #expect(report.twoWayAudio == true)
            // Tokens never in clear.
            let text = report.timeline.map { $0.event.jsonLine(t: $0.t) }.joined()
            #expect(!text.contains("0000000000001111"))
        }

        /// Android: the phone registers an FCM token (`platform:"android"`) and holds the device
        /// connection with an Android hello; the gateway pushes through FCM HTTP v1 (OAuth2 token
        /// once, then messages:send on one HTTP/2 connection) and the high-priority data message
        /// wakes the killed app, which acks, registers and answers — the same wake decision as iOS.
        @Test func androidPhoneIsWokenThroughFCM() async throws {
            let report = try await Self.run("killed", .correct, platform: .android)
            #expect(report.infrastructureError == nil, "\(report.infrastructureError ?? "")")
            #expect(report.passed, "\(report.summary)")
            #expect(report.outcomes == report.expected, "\(report.outcomes)")
            let names = report.timeline.map(\.event.name)
            #expect(names.contains("ack_sent"))
            #expect(names.contains("call_connected"), "\(names)")
            let gateway = Self.lastGatewayLog.withLock { $0 }.split(separator: "\n")
            let pushes = gateway.filter { $0.contains("\"event\":\"push_sent\"") }
            #expect(pushes.count == 1, "\(pushes)")
            #expect(pushes.allSatisfy { $0.contains("\"provider\":\"fcm\"") && $0.contains("\"fcm\":\"accepted\"") }, "\(pushes)")
            #expect(gateway.contains { $0.contains("\"event\":\"provider_request\"") && $0.contains("\"api\":\"oauth\"") })
            #expect(gateway.contains { $0.contains("\"event\":\"provider_request\"") && $0.contains("\"api\":\"fcm\"") })
            #expect(gateway.contains { $0.contains("\"event\":\"device_connected\"") && $0.contains("android") }, "\(gateway)")
            // The FCM token is never in clear, on either side.
            let text = report.timeline.map { $0.event.jsonLine(t: $0.t) }.joined() + gateway.joined()
            #expect(!text.contains(":APA91b"), "\(text)")
            print("android: push-to-ring \(report.pushToRingMs) ms")
        }

        /// RFC 8599 mode: the phone's REGISTER carries pn-provider/pn-prid/pn-param and the gateway
        /// pushes from what it read there (no token endpoint).
        @Test func rfc8599KilledPhoneIsWoken() async throws {
            let report = try await Self.run("killed", .correct, rfc8599: true)
            #expect(report.passed, "\(report.summary)")
            #expect(!report.timeline.contains { $0.event.name == "token_uploaded" })
        }

        /// RFC 8599 on Android: the REGISTER carries pn-provider=fcm, pn-prid = the FCM registration
        /// token, pn-param = the project (§10); Kamailio saves it, the gateway reads it there and
        /// wakes the killed phone through FCM HTTP v1 — no token endpoint on either side.
        @Test func rfc8599AndroidPhoneIsWokenThroughFCM() async throws {
            let report = try await Self.run("killed", .correct, rfc8599: true, platform: .android)
            #expect(report.passed, "\(report.summary)")
            #expect(!report.timeline.contains { $0.event.name == "token_uploaded" })
            let gateway = Self.lastGatewayLog.withLock { $0 }.split(separator: "\n")
            #expect(gateway.contains { $0.contains("\"event\":\"register_seen\"") && $0.contains("\"pn_provider\":\"fcm\"") && $0.contains("\"pn_used\":true") })
            let pushes = gateway.filter { $0.contains("\"event\":\"push_sent\"") }
            #expect(pushes.count == 1 && pushes.allSatisfy { $0.contains("\"provider\":\"fcm\"") && $0.contains("\"token_source\":\"rfc8599\"") }, "\(pushes)")
            let text = report.timeline.map { $0.event.jsonLine(t: $0.t) }.joined() + gateway.joined()
            #expect(!text.contains(":APA91b"), "the FCM token in clear")
        }
    }
}
