import Foundation
import Media
import Testing

extension KamailioPeer {
    /// issue 9 TURN: astra-call ↔ astra-call through Kamailio with WebRTC media relayed by
    /// Debian's coturn (RFC 8656), `--ice-policy relay` proving the relay path, and a wrong
    /// TURN password.
    @Suite struct AstraCallTURNTests {
        typealias H = CallToolHarness

        static func passwordFile(_ password: String) throws -> String {
            let path = H.temporaryPath("turn-password")
            try (password + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        static func turnArguments(_ coturn: CoturnServer, passwordFile: String, relayOnly: Bool) -> [String] {
            ["--turn", "turn:\(coturn.hostPort)", "--turn-user", "u", "--turn-password-file", passwordFile]
                + (relayOnly ? ["--ice-policy", "relay"] : [])
        }

        /// Relay-only on both sides, or on the caller only (the callee offers host candidates):
        /// the SDPs carry relayed candidates only, ICE selects a pair whose local end is a coturn
        /// relayed address, DTLS completes through the relay, and each side hears the other's
        /// tone for most of the 3 s call.
        @Test(arguments: [true, false]) func relayedCall(bothRelayed: Bool) async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let coturn = try await CoturnServer.start(turn: .init())
            defer { coturn.stop() }
            let password = try Self.passwordFile("p")
            let calleeWAV = H.temporaryPath("turn-callee"), callerWAV = H.temporaryPath("turn-caller")
            defer { for p in [calleeWAV, callerWAV, password] { try? FileManager.default.removeItem(atPath: p) } }
            let turn = Self.turnArguments(coturn, passwordFile: password, relayOnly: true)
            let callee = try await H.callee(
                server, .udp, user: bothRelayed ? "1062" : "1064",
                ["--media", "webrtc", "--tone", "1000", "--record", calleeWAV, "--after", "0.3"]
                    + (bothRelayed ? turn : []))
            let caller = try H.dial(
                server, .udp, user: bothRelayed ? "1061" : "1063", to: bothRelayed ? "1062" : "1064",
                ["--media", "webrtc", "--tone", "440", "--record", callerWAV, "--duration", "3"] + turn)
            #expect(await caller.exitStatus(within: .seconds(20)) == 0, "caller: \(caller.stderr) \(caller.stdout)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stderr) \(callee.stdout)")
            let relayedSides = bothRelayed ? [caller, callee] : [caller]
            for process in relayedSides {
                let gathered = try #require(process.events("ice_gathered").first, "\(process.stdout)")
                #expect(H.field("relay", in: gathered) == "1", "\(gathered)")
                #expect(H.field("host", in: gathered) == "0", "\(gathered)")
                let ice = try #require(process.events("ice_connected").first, "\(process.stdout)")
                let local = H.field("local", in: ice) ?? ""
                let port = UInt16(local.split(separator: ":").last ?? "") ?? 0
                #expect(coturn.relayPorts.contains(port), "local end not relayed: \(ice)")
                print("relayed call set-up: \(process.events("ice_gathered")[0]) \(ice)")
            }
            for process in [caller, callee] {
                #expect(process.events("dtls_connected").count == 1, "\(process.stdout)")
                let ended = try #require(process.events("ended").first, "\(process.stdout)")
                #expect(Int(H.field("packets_received", in: ended) ?? "") ?? 0 > 120, "\(ended)")
                print("relayed call: \(process.events("dtls_connected")[0]) \(process.events("first_rtp").first ?? "")")
            }
            if !bothRelayed {
                // The callee's host candidate pairs with the caller's relayed one.
                let ice = try #require(callee.events("ice_connected").first)
                let remote = H.field("remote", in: ice) ?? ""
                #expect(coturn.relayPorts.contains(UInt16(remote.split(separator: ":").last ?? "") ?? 0), "\(ice)")
            }
            let heardByCaller = try H.toneSeconds(callerWAV, frequency: 1000)
            let heardByCallee = try H.toneSeconds(calleeWAV, frequency: 440)
            #expect(heardByCaller >= 2.5, "caller heard \(heardByCaller) s: \(caller.stdout)")
            #expect(heardByCallee >= 2.5, "callee heard \(heardByCallee) s: \(callee.stdout)")
            #expect(try H.toneSeconds(callerWAV, frequency: 440) == 0)
        }

        /// A wrong TURN password with `--ice-policy relay`: the caller never sends its INVITE,
        /// prints one line naming the TURN failure and exits 5. With the default policy (all)
        /// the failure is a `turn_failed` event and the call goes on over host candidates.
        @Test func wrongTURNPassword() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let coturn = try await CoturnServer.start(turn: .init())
            defer { coturn.stop() }
            let password = try Self.passwordFile("wrong-secret-123")
            defer { try? FileManager.default.removeItem(atPath: password) }
            let relayOnly = try H.dial(
                server, .udp, user: "1065", to: "1066",
                ["--media", "webrtc"] + Self.turnArguments(coturn, passwordFile: password, relayOnly: true))
            #expect(await relayOnly.exitStatus(within: .seconds(10)) == 5, "\(relayOnly.stdout) \(relayOnly.stderr)")
            let lines = relayOnly.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(relayOnly.stderr)")
            #expect(
                lines.first?.hasPrefix(
                    "astra-call: call ended: media failed: TURN allocation failed (turn: unauthorized")
                    == true, "\(relayOnly.stderr)")
            #expect(lines.first?.contains("wrong username or password") == true)
            #expect(!relayOnly.stderr.contains("wrong-secret") && !relayOnly.stdout.contains("wrong-secret"))
            #expect(relayOnly.events("calling").isEmpty || relayOnly.events("trying").isEmpty)
            print("wrong TURN password: \(lines.first ?? "")")

            let callee = try await H.callee(server, .udp, user: "1066", ["--media", "webrtc", "--tone", "1000"])
            let fallback = try H.dial(
                server, .udp, user: "1065", to: "1066",
                ["--media", "webrtc", "--tone", "440", "--duration", "1"]
                    + Self.turnArguments(coturn, passwordFile: password, relayOnly: false))
            #expect(await fallback.exitStatus(within: .seconds(15)) == 0, "\(fallback.stdout) \(fallback.stderr)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0)
            let failed = try #require(fallback.events("turn_failed").first, "\(fallback.stdout)")
            #expect(H.field("reason", in: failed)?.contains("unauthorized") == true)
            #expect(fallback.events("dtls_connected").count == 1)
            let gathered = try #require(fallback.events("ice_gathered").first)
            #expect(H.field("relay", in: gathered) == "0" && H.field("host", in: gathered) != "0")
        }
    }
}
