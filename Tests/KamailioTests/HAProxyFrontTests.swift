import AstraTestSupport
import Foundation
import Testing

extension KamailioPeer {
    /// WSS through HAProxy (scripts/haproxy.sh, `KAMAILIO_TLS_FRONT=haproxy`): HAProxy ends TLS
    /// on the WSS port and passes plain WebSocket to Kamailio, which then runs several TCP
    /// workers without the OpenSSL 3 shared-memory fault of Kamailio 5.6 (docs/kamailio.md
    /// "TLS in front of Kamailio"). The fleet's figures belong to the bench; this checks that
    /// phones register, are held and unregister through the front.
    @Suite struct HAProxyFrontTests {
        @Test func aFleetIsHeldThroughHAProxyWithFourKamailioWorkers() async throws {
            let server = try KamailioServer.start(tcpChildren: 4, haproxyFront: true)
            defer { server.stop() }
            let lines = ConnectionLoadTests.lines(
                300, server: "127.0.0.1:\(server.wssPort)", transport: "wss", caFile: server.caFile, first: 103_000)
            let (status, out, err) = try await ToolProcess.run(
                "astra-register",
                ["--load", "-", "--fleet", "--duration", "3", "--keep-alive", "1", "--concurrency", "100", "--json"],
                stdin: lines, timeout: .seconds(180))
            #expect(status == 0, "\(err)")
            let summary = try #require(ConnectionLoadTests.events("load_summary", out).first, "\(out.suffix(800))")
            for (key, value) in [("registered", 300), ("failed", 0), ("connections", 300)] {
                #expect(ConnectionLoadTests.field(key, summary) == value, "\(key): \(summary)")
            }
            let held = try #require(ConnectionLoadTests.field("held_at_end", summary))
            #expect(held >= 295 && ConnectionLoadTests.field("unregistered", summary) == held, "\(summary)")
            let pings = try #require(ConnectionLoadTests.field("keep_alive_pings", summary))
            #expect(pings >= 300, "every held line pinged through the front: \(summary)")
            #expect(!out.contains("astra103") && !err.contains("astra103"), "a password leaked")
        }

        @Test func aOneShotRegistrationThroughTheFrontVerifiesHAProxysCertificate() async throws {
            let server = try KamailioServer.start(haproxyFront: true)
            defer { server.stop() }
            let line = ConnectionLoadTests.lines(
                1, server: "127.0.0.1:\(server.wssPort)", transport: "wss", caFile: server.caFile, first: 103_500)
            let (status, out, err) = try await ToolProcess.run(
                "astra-register", ["--line", "-", "--json"], stdin: line, timeout: .seconds(60))
            #expect(status == 0, "\(err)")
            #expect(out.contains("\"registered\":true"), "\(out)")
            // Kamailio's own WS listener behind the front speaks plain WebSocket, not TLS.
            let (plainStatus, plainOut, _) = try await ToolProcess.run(
                "astra-register",
                ["--line", "-", "--server", "127.0.0.1:\(server.wsBackendPort)", "--transport", "ws", "--json"],
                stdin: line, timeout: .seconds(60))
            #expect(plainStatus == 0 && plainOut.contains("\"registered\":true"), "\(plainOut)")
        }
    }
}
