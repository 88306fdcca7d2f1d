import HTTPLite
import Testing

@testable import WakeGateway

/// The token endpoints' contract (docs/push-wake-rules.md), with no sockets.
@Suite struct WakeAPITests {
    static let token = String(repeating: "ab12", count: 16)

    static func request(_ method: String, _ target: String, _ body: String = "") throws -> HTTPRequest {
        try HTTPRequest(
            method: method, target: target,
            headers: [HTTPHeader("Host", "h"), HTTPHeader("Content-Type", "application/json")],
            body: Array(body.utf8))
    }

    static func apply(_ store: inout PushTokenStore, _ request: HTTPRequest, now: Int64 = 1_764_505_496_789)
        -> HTTPResponse
    {
        switch WakeAPIRequest.parse(request) {
        case .reject(let response): return response
        case .request(let parsed): return store.apply(parsed, nowMs: now)
        }
    }

    static let registerBody =
        #"{"asterisk_endpoint":"1001","token":"\#(token)","environment":"sandbox","bundle_id":"com.example.astra","platform":"ios"}"#

    @Test func registerStatusDeleteRoundTrip() throws {
        var store = PushTokenStore()
        let created = Self.apply(&store, try Self.request("POST", "/api/v1/users/voip-push-token", Self.registerBody))
        #expect(created.status == 200)
        #expect(!String(decoding: created.body, as: UTF8.self).contains(Self.token))
        #expect(store.registration(for: "1001")?.topic == "com.example.astra.voip")

        let status = Self.apply(
            &store,
            try Self.request(
                "GET", "/api/v1/users/voip-push-status?asterisk_endpoint=1001&token=\(Self.token.uppercased())"))
        #expect(status.status == 200)
        #expect(
            String(decoding: status.body, as: UTF8.self)
                == #"{"registered":true,"token_matches":true,"environment":"sandbox","platform":"ios","updated_at":"2025-11-30T12:24:56.789Z"}"#
                + "\n")
        let other = Self.apply(
            &store,
            try Self.request("GET", "/api/v1/users/voip-push-status?asterisk_endpoint=1001&token=00112233445566778899"))
        #expect(String(decoding: other.body, as: UTF8.self).contains(#""token_matches":false"#))

        let deleted = Self.apply(
            &store, try Self.request("DELETE", "/api/v1/users/voip-push-token?asterisk_endpoint=1001"))
        #expect(deleted.status == 200)
        let gone = Self.apply(&store, try Self.request("GET", "/api/v1/users/voip-push-status?asterisk_endpoint=1001"))
        #expect(gone.status == 404)
        #expect(String(decoding: gone.body, as: UTF8.self) == "{\"registered\":false}\n")
        #expect(
            Self.apply(&store, try Self.request("DELETE", "/api/v1/users/voip-push-token?asterisk_endpoint=1001"))
                .status == 404)
    }

    @Test(arguments: [
        ("POST", "/api/v1/users/voip-push-token", "{", 400, "bad JSON"),
        ("POST", "/api/v1/users/voip-push-token", "[1]", 400, "must be an object"),
        ("POST", "/api/v1/users/voip-push-token", #"{"asterisk_endpoint":"1001"}"#, 400, "missing field token"),
        (
            "POST", "/api/v1/users/voip-push-token",
            #"{"asterisk_endpoint":1001,"token":"x","environment":"sandbox","bundle_id":"b","platform":"ios"}"#, 400,
            "must be a string"
        ),
        (
            "POST", "/api/v1/users/voip-push-token",
            #"{"asterisk_endpoint":"1001","token":"xyz","environment":"sandbox","bundle_id":"b","platform":"ios"}"#,
            400,
            "token must be hex"
        ),
        (
            "POST", "/api/v1/users/voip-push-token",
            #"{"asterisk_endpoint":"1001","token":"00112233445566778899","environment":"dev","bundle_id":"b","platform":"ios"}"#,
            400, "environment must be"
        ),
        ("GET", "/api/v1/users/voip-push-status", "", 400, "asterisk_endpoint is required"),
        ("DELETE", "/api/v1/users/voip-push-token", "", 400, "asterisk_endpoint is required"),
        ("PUT", "/api/v1/users/voip-push-token", "", 405, "method not allowed"),
        ("GET", "/api/v1/users/voip-push-ack", "", 405, "method not allowed"),
        ("POST", "/api/v1/users/voip-push-ack", "{}", 400, "missing field push_id"),
        ("GET", "/api/v1/nope", "", 404, "no such endpoint"),
    ])
    func badRequestsGetAOneLineReason(method: String, target: String, body: String, status: Int, reason: String) throws
    {
        var store = PushTokenStore()
        let response = Self.apply(&store, try Self.request(method, target, body))
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == status, "\(text)")
        #expect(text.contains(reason), "\(text)")
        #expect(text.split(separator: "\n").count == 1)
    }

    @Test func ackParses() throws {
        let parsed = WakeAPIRequest.parse(
            try Self.request("POST", "/api/v1/users/voip-push-ack", #"{"push_id":"p-1"}"#))
        #expect(parsed == .request(.ack(pushID: "p-1")))
    }

    @Test func wrongContentTypeIs415() throws {
        let request = try HTTPRequest(
            method: "POST", target: "/api/v1/users/voip-push-ack", headers: [HTTPHeader("Content-Type", "text/plain")],
            body: Array("{}".utf8))
        guard case .reject(let response) = WakeAPIRequest.parse(request) else { Issue.record("accepted"); return }
        #expect(response.status == 415)
    }

    @Test func redactionAndTimestamps() {
        #expect(TokenText.redact(Self.token) == "ab12…(64)")
        #expect(WallClock.iso8601(ms: 0) == "1970-01-01T00:00:00.000Z")
        #expect(WallClock.iso8601(ms: 951_782_400_123) == "2000-02-29T00:00:00.123Z")
    }
}
