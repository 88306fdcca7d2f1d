import AstraTestSupport
import Foundation
import PushKitEmu
import PushKitLive
import SIPCore
import Testing

extension KamailioPeer {
    /// Two gateways on one PostgreSQL behind Kamailio, one of them SIGKILLed at the midpoint of a
    /// run of calls to sleeping lines and restarted (docs/wake-gateway.md "Losing a gateway"). Each
    /// call is a whole wake with the live phone of `astra-pushsim live` (``LivePhone``, the
    /// reference policy): the killed app gets the push, acks, registers over WSS and answers; the
    /// caller talks, hangs up, and the phone's app is killed again before its next call.
    ///
    /// CI runs 40 calls on 3 lines, the kill at the midpoint; `ASTRA_HA_CALLS=200` runs the full
    /// 200 (10 lines) and prints the figures of docs/bench/wakegw-failover.md;
    /// `ASTRA_HA_KEEP_LOGS=DIR` keeps the gateways' events and Kamailio's log there.
    @Suite(
        .disabled(if: PostgreSQLCluster.unavailable != nil, Comment(rawValue: PostgreSQLCluster.unavailable ?? "")))
    struct GatewayFailoverRunTests {
        static let calls = ProcessInfo.processInfo.environment["ASTRA_HA_CALLS"].flatMap(Int.init) ?? 40
        /// CI: 3 lines, 13 or 14 wakes each (more stale bindings than a lookup has branches).
        static let lines = calls >= 100 ? 10 : 3
        /// Kamailio's dispatcher timeout (`KAMAILIO_WAKE_FR_MS`): an INVITE a gateway does not
        /// answer goes to the next one after this long.
        static let dispatcherTimeoutMs: Int64 = 1_500
        /// How long Kamailio lets a gateway hold a call without an 18x (`KAMAILIO_WAKE_HOLD_MS`):
        /// above what these gateways ever hold one (qualify 0.5 s + ack window 2 s + register
        /// wait 4 s), so only a dead gateway's calls reach it.
        static let holdMs: Int64 = 8_000
        /// The ringing timeout (`KAMAILIO_WAKE_FR_INV_MS`), shortened: these phones answer after
        /// 100 ms, and a call ringing through the gateway that is killed loses the phone's
        /// answer (it goes back through the dead gateway), its caller getting 408 at this bound.
        static let ringMs: Int64 = 15_000

        @Test(.timeLimit(.minutes(10))) func killedGatewayLosesNoCallAndNoRegistration() async throws {
            try await PostgreSQLCluster.with { cluster in
                try await cluster.createDatabase("gw")
                let directory = NSTemporaryDirectory() + "astra-ha-\(UUID().uuidString)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let rig = try await GatewayFailoverRig.start(
                    state: cluster.url(database: "gw"), directory: directory,
                    gatewaySettings: [
                        "--ack-window-ms", "2000", "--register-wait-ms", "4000", "--qualify-timeout-ms", "500",
                        // A line called every second or so, far above a person's push cap.
                        "--push-burst", "1000", "--push-per-minute", "60000",
                    ],
                    kamailioSettings: [
                        "KAMAILIO_WAKE_FR_MS": String(Self.dispatcherTimeoutMs), "KAMAILIO_WAKE_HOLD_MS": String(Self.holdMs),
                        "KAMAILIO_WAKE_FR_INV_MS": String(Self.ringMs),
                    ])
                do {
                    let run = try await FailoverRun.start(rig, lines: Self.lines)
                    let figures = await run.run(calls: Self.calls, restartAfter: .seconds(2))
                    await run.shutdown()
                    print(figures.line)
                    Self.check(figures, rig)
                } catch {
                    Issue.record("\(error): \(rig.kamailioLog.suffix(3_000))")
                }
                await rig.stop()
            }
        }

        static func check(_ figures: FailoverRun.Figures, _ rig: GatewayFailoverRig) {
            #expect(figures.killedAtMs >= 0, "gw_a never held a call to be killed with: \(figures.line)")
            #expect(figures.finals == figures.calls, "every caller gets a final response: \(figures.line)")
            #expect(figures.lostRegistrations == 0, "\(figures.line)")
            #expect(figures.heldAtEnd == 0, "a gateway still holds calls: \(figures.line)")
            #expect(figures.afterKill > 0 && figures.afterKillConnected == figures.afterKill, "\(figures.line)")
            #expect(figures.afterKillByDead == 0, "\(figures.line)")
            #expect(figures.beforeKillConnected == figures.beforeKill, "\(figures.line)")
            // A call the dead gateway was holding goes to the survivor once Kamailio's hold timer
            // gives the dead one up, and is answered there; one already ringing through it gets
            // Kamailio's 408 at the ringing timeout. No caller is left to its own Timer B (32 s).
            #expect(figures.inFlight > 0, "\(figures.line)")
            #expect(figures.maxInFlightFinalMs <= max(Self.holdMs, Self.ringMs) + 8_000, "\(figures.line)")
            // The first INVITE after the kill that went to the dead gateway reached the survivor
            // within the dispatcher timeout (plus the time a held call takes to be seen here,
            // generous beside stress-ng); no post-kill call waited for more than that.
            #expect(figures.maxHeldAfterKillMs <= Self.dispatcherTimeoutMs + 3_000, "\(figures.line)")
            #expect(rig.kamailioLog.contains("wake gateway"), "\(rig.kamailioLog.suffix(2_000))")
        }
    }
}
