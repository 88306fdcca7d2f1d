import AstraTestSupport
import Foundation
import HTTPLite
import SIPTransport
import Testing

@testable import WakeGateway

/// Several gateways: a push-id names the gateway that issued it (`--gateway-id`), and an ack that
/// reaches another gateway is forwarded to it (`--peer`) with its answer relayed, never forwarded
/// twice and never to an address the request names (docs/wake-gateway.md "Two or more gateways").
@Suite struct AckForwardingTests {
    @Test func pushIDCarriesItsGatewayAndOnlyThatGatewayRedeemsIt() {
        var b = PushGrants(gatewayID: "gw_b")
        let id = b.issue(call: 7, expiresMs: 10_000)
        #expect(id.hasSuffix("-gw_b") && id.utf8.count == 49 + 5)
        #expect(PushGrants.gateway(of: id) == "gw_b")
        #expect(PushGrants.redacted(id) == String(id.prefix(17)) + "…-gw_b")
        var a = PushGrants(gatewayID: "gw_a")
        #expect(a.redeem(id, nowMs: 0) == nil)  // not a's
        #expect(b.redeem(id, nowMs: 0) == 7)
        var single = PushGrants()
        let plain = single.issue(call: 1, expiresMs: 10_000)
        #expect(plain.utf8.count == 49 && PushGrants.gateway(of: plain) == nil)
        #expect(single.redeem(plain, nowMs: 0) == 1)
        for bad in [plain + "-", plain + "-UPPER", plain + "-" + String(repeating: "x", count: 17), plain + "x"] {
            #expect(PushGrants.gateway(of: bad) == nil && PushGrants.split(bad) == nil)
        }
    }

    static func ack(_ gateway: WakeGatewayServer<some Clock<Duration>>, _ pushID: String, forwarded: Bool = false)
        async throws -> HTTPResponse
    {
        var headers = [HTTPHeader("Host", "h"), HTTPHeader("Content-Type", "application/json")]
        if forwarded { headers.append(HTTPHeader(WakeGatewayServer<ContinuousClock>.forwardedHeader, "gw_x")) }
        return await gateway.handleHTTP(
            try HTTPRequest(
                method: "POST", target: "/api/v1/users/voip-push-ack", headers: headers,
                body: Array(#"{"push_id":"\#(pushID)"}"#.utf8)))
    }

    @Test func ackForAnotherGatewaysPushIsForwardedToItOnce() async throws {
        var configuration = WakeGatewayConfiguration()
        (configuration.sipPort, configuration.httpPort, configuration.apnsDevicePort) = (0, 0, 0)
        configuration.gatewayID = "gw_b"
        let b = try WakeGatewayServer(configuration: configuration, clock: ContinuousClock())
        let ports = try await b.start()
        defer { Task { await b.stop() } }
        configuration.gatewayID = "gw_a"
        configuration.peers = ["gw_b": SocketAddress(ip: "127.0.0.1", port: ports.http)!]
        let a = try WakeGatewayServer(configuration: configuration, clock: ContinuousClock())

        var issuer = PushGrants(gatewayID: "gw_b")
        let pushID = issuer.issue(call: 1, expiresMs: 1)  // b holds no such grant: b answers 404
        let answer = try await Self.ack(a, pushID)
        #expect(answer.status == 404)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("unknown push_id"))
        #expect(await a.counters["ack_forwarded"] == 1)
        #expect(await b.counters["ack_unknown"] == 1)  // b answered it: the ack reached the holder

        // Already forwarded once: answered where it is, never sent on (no loop between peers).
        #expect(try await Self.ack(a, pushID, forwarded: true).status == 404)
        #expect(await a.counters["ack_forwarded"] == 1)
        // A gateway nobody configured: 404, nothing sent anywhere.
        var stranger = PushGrants(gatewayID: "gw_c")
        #expect(try await Self.ack(a, stranger.issue(call: 1, expiresMs: 1)).status == 404)
        #expect(await a.counters["ack_forwarded"] == 1)

        // The holder is gone: 502, so the phone can tell "not delivered" from "no such push".
        await b.stop()
        #expect(try await Self.ack(a, pushID).status == 502)
        #expect(await a.counters["ack_forward_failed"] == 1)
    }
}
