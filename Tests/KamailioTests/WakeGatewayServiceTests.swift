import AstraTestSupport
import Foundation
import SIPCore
import Testing

@testable import SIPTransport

/// The real astra-wakegw as a service (docs/wake-gateway.md "Running it as a service"): its
/// `/metrics` read with curl and judged by `promtool check metrics` (Debian prometheus), in both
/// formats; and SIGTERM draining — a new INVITE is refused 503, the held caller is answered, the
/// process exits 0. The test plays Kamailio.
@Suite struct WakeGatewayServiceTests {
    typealias Gateway = WakeGatewayResourceTests.Gateway

    static func shell(_ script: String) async throws -> ChildProcess.Result {
        try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script])
    }

    @Test func metricsPassPromtoolInBothFormats() async throws {
        let kamailio = try WakeGatewayResourceTests.Kamailio()
        let gateway = try await Gateway.start(
            kamailio: kamailio.udp.local, ["--ack-window-ms", "20000", "--drain-timeout-ms", "200"])
        let bearer = try gateway.adminBearer()
        #expect(try await gateway.registerToken("1002", token: String(repeating: "ab", count: 32), bearer: bearer) == 200)
        // A refusal and a held call, so those series carry something.
        _ = try await Gateway.request(gateway.http, "GET", "/api/v1/users/voip-push-status?asterisk_endpoint=1002", "")
        try await kamailio.udp.send(
            kamailio.message("INVITE", user: "1002", branch: "z9hG4bK-m1", callID: "m1@test"), to: gateway.sip)
        let url = "http://127.0.0.1:\(gateway.http)/metrics"
        #expect(await gateway.process.waitFor(.seconds(15)) { !gateway.process.events("push_sent").isEmpty })
        let text = try await Self.shell("curl -s \(url)")
        #expect(text.status == 0)
        for line in [
            #"wakegw_push_registrations{platform="ios",source="api"} 1"#, "wakegw_held_calls 1",
            #"wakegw_pushes_total{provider="apns",outcome="accepted"} 1"#,
            #"wakegw_auth_refusals_total{reason="no_token"} 1"#,
            #"wakegw_state_store_info{kind="memory"} 1"#, "wakegw_draining 0",
        ] {
            #expect(text.text.contains(line + "\n"), "\(line) in\n\(text.text)")
        }
        #expect(text.text.contains(#"wakegw_state_store_seconds_count{outcome="ok"} "#))
        let lint = try await Self.shell("set -o pipefail; curl -s \(url) | promtool check metrics")
        #expect(lint.status == 0, "\(lint.stderr)\(lint.text)")
        let open = try await Self.shell(
            "set -o pipefail; curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' \(url) | tail -1")
        #expect(open.text == "# EOF\n")
        await gateway.stop()
    }

    @Test func sigtermRefusesNewCallsAnswersTheHeldOneAndExits() async throws {
        let kamailio = try WakeGatewayResourceTests.Kamailio()
        let gateway = try await Gateway.start(kamailio: kamailio.udp.local, ["--ack-window-ms", "20000", "--drain-timeout-ms", "1500"])
        let bearer = try gateway.adminBearer()
        #expect(try await gateway.registerToken("1002", token: String(repeating: "cd", count: 32), bearer: bearer) == 200)
        try await kamailio.udp.send(
            kamailio.message("INVITE", user: "1002", branch: "z9hG4bK-d1", callID: "d1@test"), to: gateway.sip)
        #expect(await gateway.process.waitFor(.seconds(15)) { !gateway.process.events("push_sent").isEmpty })
        gateway.process.signal(SIGTERM)
        #expect(await gateway.process.waitFor(.seconds(15)) { !gateway.process.events("draining").isEmpty })
        // Draining: a new call is refused at once, so the caller's proxy can try elsewhere.
        try await kamailio.udp.send(
            kamailio.message("INVITE", user: "1002", branch: "z9hG4bK-d2", callID: "d2@test"), to: gateway.sip)
        let refused = await eventuallySome(timeout: .seconds(15)) { kamailio.finals.withLock { $0["z9hG4bK-d2"] } }
        #expect(refused?.statusCode == 503)
        // The held caller is answered (its phone never acked: 503 at the drain deadline).
        let held = await eventuallySome(timeout: .seconds(15)) { kamailio.finals.withLock { $0["z9hG4bK-d1"] } }
        #expect(held?.statusCode == 503)
        #expect(await gateway.process.exitStatus(within: .seconds(15)) == 0)
        #expect(gateway.process.stdout.contains(#""event":"stopped","#))
        unlink(gateway.keyFile)
    }
}
