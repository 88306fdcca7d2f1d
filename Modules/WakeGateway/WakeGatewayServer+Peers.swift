import AstraJSON
import HTTPLite

/// Several gateways (docs/wake-gateway.md "Two or more gateways"): a push-id ends with the id of
/// the gateway that issued it, and only that gateway holds the call. An ack that reaches
/// another one (a load balancer in front of the API, a phone's stale address) is forwarded to
/// the holder named by `--peer`, and the holder's answer is relayed unchanged, so the phone sees
/// one API. A forwarded request carries ``forwardedHeader`` and is never forwarded again.
extension WakeGatewayServer {
    static var forwardedHeader: String { "X-Astra-Forwarded-By" }

    func forwardAck(_ pushID: String, to owner: String, forwarded: Bool) async -> HTTPResponse {
        guard !forwarded, let peer = configuration.peers[owner] else {
            count("ack_unknown")
            return .json(404, "{\"error\":\"unknown push_id\"}")
        }
        let body = Array((["push_id": .string(pushID)] as JSONObject).jsonText.utf8)
        let head =
            "POST /api/v1/users/voip-push-ack HTTP/1.1\r\nHost: \(peer)\r\nContent-Type: application/json\r\n"
            + "\(Self.forwardedHeader): \(configuration.gatewayID ?? "-")\r\nConnection: close\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        let answer = await Self.exchange(Array(head.utf8) + body, with: peer.ip, port: peer.port, clock: clock)
        emit(
            WakeEvent(
                "ack_forwarded",
                [
                    ("push_id", .string(PushGrants.redacted(pushID))), ("to", .string(owner)),
                    ("status", .int(Int64(answer?.status ?? 0))),
                ]))
        guard let answer else {
            count("ack_forward_failed")
            return .json(502, "{\"error\":\"the gateway holding this push_id did not answer\"}")
        }
        count("ack_forwarded")
        return HTTPResponse(
            status: answer.status, headers: [HTTPHeader("Content-Type", "application/json")], body: answer.body)
    }

    /// One request on a fresh connection, its answer within 2 s (the gateway's clock), or nil.
    static func exchange(_ bytes: [UInt8], with host: String, port: UInt16, clock: C) async -> HTTPResponseHead? {
        guard let connection = try? TCPConnection.connect(host: host, port: port) else { return nil }
        defer { connection.close() }
        let timeout = Task {
            try? await clock.sleep(for: .seconds(2))
            connection.close()  // ends the read below
        }
        defer { timeout.cancel() }
        guard await connection.write(bytes, timeoutMs: 2_000) else { return nil }
        var buffer: [UInt8] = []
        for await event in connection.events {
            guard case .data(let chunk) = event else { break }
            buffer += chunk
            if let (head, _) = HTTPResponseHead.parse(buffer) { return head }
        }
        return nil
    }
}
