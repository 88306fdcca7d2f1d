import AstraTestSupport
import Foundation
import Synchronization
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// Two astra-wakegw processes behind one Kamailio (docs/wake-gateway.md "Two or more
    /// gateways"): the dispatcher's set 1 holds both, REGISTERs are replicated to every live one,
    /// each new INVITE for a local line goes to one of them and fails over to the other when it
    /// does not answer; OPTIONS probes take a dead gateway out of the set and bring it back.
    @Suite struct WakeGatewayPairTests {
        typealias Gateway = WakeGatewayResourceTests.Gateway
        typealias H = CallToolHarness

        /// Kamailio and two gateways (memory state). The gateways start first, told Kamailio's
        /// port before it binds, so no probe of Kamailio's ever goes unanswered because a gateway
        /// was not listening yet (an unanswered probe marks its gateway down for a probe round).
        final class Pair: Sendable {
            let server: KamailioServer
            let ports: [UInt16]
            let first: Gateway
            let second: Gateway
            let restarted = Mutex<[Gateway]>([])

            init(server: KamailioServer, ports: [UInt16], gateways: [Gateway]) {
                self.server = server
                self.ports = ports
                first = gateways[0]
                second = gateways[1]
            }

            var kamailioLog: String {
                (try? String(contentsOfFile: server.runDir + "/kamailio.log", encoding: .utf8)) ?? ""
            }
            var kamailio: SocketAddress { SocketAddress(ip: "127.0.0.1", port: server.sipPort)! }

            static func start(settings: [String: String] = [:]) async throws -> Pair {
                var lastError: any Error = KamailioError(message: "no attempt")
                for _ in 0..<5 {
                    let base = TestPorts.random(alignment: 4, span: 4)
                    let kamailio = SocketAddress(ip: "127.0.0.1", port: base)!
                    var gateways: [Gateway] = []
                    do {
                        for _ in 0..<2 { gateways.append(try await Gateway.start(kamailio: kamailio, [])) }
                        let list = gateways.map { "127.0.0.1:\($0.sip.port)" }.joined(separator: ",")
                        let server = try KamailioServer.start(wakeGateway: list, settings: settings, base: base)
                        return Pair(server: server, ports: gateways.map(\.sip.port), gateways: gateways)
                    } catch {
                        lastError = error  // Kamailio's ports were taken: elsewhere
                        for gateway in gateways { await gateway.stop() }
                    }
                }
                throw lastError
            }

            /// Starts a pair, runs `body` and stops every gateway and Kamailio before returning,
            /// whether `body` throws or not: a stop left to a `Task` after the test may never
            /// run (the test process ends first) and leaves the gateways running.
            static func with(settings: [String: String] = [:], _ body: (Pair) async throws -> Void) async throws {
                let pair = try await start(settings: settings)
                do { try await body(pair) } catch {
                    await pair.stop()
                    throw error
                }
                await pair.stop()
            }

            /// A gateway again on the SIP port of the one that was killed (Kamailio's list names it).
            func restart(port: UInt16) async throws -> Gateway {
                let gateway = try await Gateway.start(kamailio: kamailio, ["--sip", "127.0.0.1:\(port)"])
                restarted.withLock { $0.append(gateway) }
                return gateway
            }

            func stop() async {
                for gateway in [first, second] + restarted.withLock({ $0 }) { await gateway.stop() }
                server.stop()
            }

            func kill(_ gateway: Gateway) async {
                gateway.process.signal(SIGKILL)
                _ = await gateway.process.exitStatus(within: .seconds(10))
            }

            /// One call to a line with neither a registration nor a push token: the gateway that
            /// holds it answers 480 at once (docs/wake-gateway.md "Failover"). Returns the
            /// caller's final status.
            func call(from caller: String, to callee: String) async throws -> String? {
                let dial = try H.dial(server, .udp, user: caller, to: callee, [])
                _ = await dial.exitStatus(within: .seconds(20))
                return H.field("status", in: dial.events("ended").first ?? "")
            }
        }

        static func held(_ gateway: Gateway, _ user: String) -> Bool {
            gateway.process.events("call_held").contains { $0.contains(#""user":"\#(user)""#) }
        }

        /// A UDP line whose REGISTER carries RFC 8599 `pn-*` parameters.
        static func pushLine(user: String, _ server: KamailioServer) -> String {
            """
            {"v":1,"user":"\(user)","password":"astra\(user)","domain":"127.0.0.1","server":"127.0.0.1:\(server.sipPort)",\
            "transport":"udp","push_provider":"apns","push_token":"\(WakeGatewayRig.token)",\
            "push_topic":"ABCDE12345.com.example.astra.voip"}
            """
        }

        /// A REGISTER saved by Kamailio reaches both gateways: each learns the binding and its
        /// `pn-*` push registration (with one t_replicate per transaction, only the first did).
        @Test func registerIsReplicatedToEveryGateway() async throws {
            try await Pair.with { (pair: Pair) async throws in
                let (status, stdout, stderr) = try await ToolProcess.run(
                    "astra-register", ["--line", "-"], stdin: Self.pushLine(user: "1061", pair.server))
                #expect(status == 0, "\(stdout) \(stderr)")
                for gateway in [pair.first, pair.second] {
                    let learnt = await gateway.process.waitFor(.seconds(10)) {
                        gateway.process.events("register_seen").contains {
                            $0.contains(#""user":"1061""#) && $0.contains(#""pn_used":true"#)
                        }
                    }
                    #expect(learnt, "gateway \(gateway.sip): \(gateway.process.events("register_seen"))")
                }
            }
        }

        /// The first gateway is SIGKILLed and no probe has noticed yet (probes every 60 s): the
        /// INVITE sent to it gets no answer, and after the dispatcher's timeout (WAKEGW_FR) it
        /// goes to the second gateway, which holds it and answers; the dead one is marked down,
        /// so the next call goes to the survivor at once. Round-robin sends one of two
        /// consecutive calls to the dead gateway, whichever comes first.
        @Test func inviteFailsOverFromAKilledGateway() async throws {
            try await Pair.with(settings: ["KAMAILIO_WAKE_PING_S": "60"]) { (pair: Pair) async throws in
                #expect(try await pair.call(from: "1062", to: "1063") == "480")  // both gateways work
                await pair.kill(pair.first)
                for (caller, callee) in [("1064", "1065"), ("1066", "1067")] {
                    #expect(try await pair.call(from: caller, to: callee) == "480", "\(pair.kamailioLog)")
                    #expect(Self.held(pair.second, callee), "\(pair.second.process.events("call_held"))")
                }
                let log = pair.kamailioLog
                #expect(log.contains("wake gateway sip:127.0.0.1:\(pair.ports[0]) did not answer"), "\(log)")
                #expect(log.contains("wake gateway failover to sip:127.0.0.1:\(pair.ports[1])"), "\(log)")
                #expect(log.components(separatedBy: "wake gateway failover").count == 2, "one failover: \(log)")
            }
        }

        /// With probes every second, a killed gateway is marked down without any call paying for
        /// it (no failover: every call goes straight to the survivor), and once it is back on its
        /// port an answered probe returns it to the set and it takes calls again.
        @Test func probesSkipADeadGatewayAndReadmitItsRestart() async throws {
            try await Pair.with(settings: ["KAMAILIO_WAKE_PROBE_MS": "1000"]) { (pair: Pair) async throws in
                let down = "wake gateway sip:127.0.0.1:\(pair.ports[0]) down"
                await pair.kill(pair.first)
                #expect(await eventually(timeout: .seconds(15)) { pair.kamailioLog.contains(down) }, "\(pair.kamailioLog)")
                for (caller, callee) in [("1068", "1069"), ("1070", "1071")] {
                    #expect(try await pair.call(from: caller, to: callee) == "480")
                    #expect(Self.held(pair.second, callee))
                }
                #expect(!pair.kamailioLog.contains("wake gateway failover"), "\(pair.kamailioLog)")

                let again = try await pair.restart(port: pair.ports[0])
                let up = "wake gateway sip:127.0.0.1:\(pair.ports[0]) up"
                #expect(await eventually(timeout: .seconds(15)) { pair.kamailioLog.contains(up) }, "\(pair.kamailioLog)")
                // A probe sent before the restart may still time out and mark it down once more
                // until the next probe: calls until the restarted gateway holds one, a bounded few.
                var servedByRestarted = false
                for n in 0..<8 where !servedByRestarted {
                    let callee = String(1072 + 2 * n + 1)
                    #expect(try await pair.call(from: String(1072 + 2 * n), to: callee) == "480")
                    servedByRestarted = Self.held(again, callee)
                    #expect(servedByRestarted || Self.held(pair.second, callee))
                }
                #expect(servedByRestarted, "\(pair.kamailioLog)")
            }
        }
    }
}
