import AstraJSON
import PushKitEmu
import SIPCore

/// The phone's side of the gateway's HTTP API (docs/push-wake-rules.md "The server"):
/// a minimal HTTP/1.1 client over a loopback socket (one request per connection,
/// `Connection: close`). Tokens travel only in request bodies / query strings, never in logs.
public struct GatewayClient: Sendable {
    /// One HTTP answer.
    public struct Response: Sendable, Hashable {
        /// Status code (200, 404…).
        public var status: Int
        /// The body bytes.
        public var body: [UInt8]
        /// The body as JSON, when it is JSON.
        public var json: JSONValue? { try? JSONValue.parse(body) }
    }

    /// Gateway host (IPv4 literal).
    public var host: String
    /// Gateway HTTP port.
    public var port: UInt16
    /// Other gateways' HTTP ports on the same host, tried in turn when a port refuses the
    /// connection: what one API name in front of several gateways does for the phone when one
    /// of them is down (docs/wake-gateway.md "Two or more gateways"). An answer, whatever its
    /// status, is never retried elsewhere.
    public var fallbackPorts: [UInt16] = []
    /// Per-request timeout.
    public var timeoutMs: Int
    /// The JWT sent as `Authorization: Bearer` on the token endpoints (never on the ack: the
    /// push-id is its capability). Never logged.
    public var bearer: String?

    public init(host: String = "127.0.0.1", port: UInt16, timeoutMs: Int = 2_000, bearer: String? = nil) {
        self.host = host
        self.port = port
        self.timeoutMs = timeoutMs
        self.bearer = bearer
    }

    /// `POST /api/v1/users/voip-push-ack {"push_id":…}`: the one request allowed before reporting.
    public func ack(pushID: String) async throws(LiveError) -> Response {
        try await request("POST", "/api/v1/users/voip-push-ack", json: (["push_id": .string(pushID)] as JSONObject).jsonText)
    }

    /// `POST /api/v1/users/voip-push-token {asterisk_endpoint, token, environment, bundle_id, platform}`,
    /// with `device_key`, `grant`, `call_key` when the phone asks for sealed pushes (`sealing`).
    /// `token`: the APNs token's hex (iOS) or the FCM registration token (Android).
    public func registerToken(
        endpoint: String, token: String, environment: String, bundleID: String, platform: DevicePlatform = .ios,
        sealing: LiveSealing? = nil
    ) async throws(LiveError) -> Response {
        var body: JSONObject = [
            "asterisk_endpoint": .string(endpoint), "token": .string(token), "environment": .string(environment),
            "bundle_id": .string(bundleID), "platform": .string(platform.rawValue),
        ]
        for (name, value) in sealing?.offer ?? [] { body[name] = .string(value) }
        return try await request("POST", "/api/v1/users/voip-push-token", json: body.jsonText)
    }

    /// `GET /api/v1/users/voip-push-status?asterisk_endpoint=&token=` (404 = not registered).
    public func status(endpoint: String, token: String) async throws(LiveError) -> Response {
        try await request(
            "GET", "/api/v1/users/voip-push-status?asterisk_endpoint=\(Self.escape(endpoint))&token=\(Self.escape(token))")
    }

    /// `DELETE /api/v1/users/voip-push-token?asterisk_endpoint=`.
    public func deleteToken(endpoint: String) async throws(LiveError) -> Response {
        try await request("DELETE", "/api/v1/users/voip-push-token?asterisk_endpoint=\(Self.escape(endpoint))")
    }

    /// One request; the answer is read until the server closes or Content-Length is met.
    public func request(_ method: String, _ path: String, json: String? = nil) async throws(LiveError) -> Response {
        var last = LiveError(.network, "\(method) \(path): no gateway")
        for port in [port] + fallbackPorts {
            let (result, connected) = await attempt(method, path, json: json, port: port)
            if connected { return try result.get() }
            if case .failure(let error) = result { last = error }
        }
        throw last
    }

    /// One request to `port`; `connected` is false when the connection could not be made (the
    /// next port may be tried: nothing reached that gateway).
    func attempt(_ method: String, _ path: String, json: String?, port: UInt16) async
        -> (Result<Response, LiveError>, connected: Bool)
    {
        let host = host, timeoutMs = timeoutMs
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        head += "User-Agent: astra-pushsim-live\r\nAccept: application/json\r\n"
        let body = Array((json ?? "").utf8)
        if json != nil { head += "Content-Type: application/json\r\n" }
        if let bearer, !path.hasPrefix("/api/v1/users/voip-push-ack") { head += "Authorization: Bearer \(bearer)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + body
        return await offPool {
            do throws(LiveError) {
                let socket: LoopbackSocket
                do throws(LiveError) {
                    socket = try LoopbackSocket.connect(host: host, port: port, timeoutMs: timeoutMs)
                } catch {
                    return (.failure(error), false)
                }
                socket.setReceiveTimeout(ms: timeoutMs)
                try socket.writeAll(bytes)
                var received: [UInt8] = []
                while true {
                    if let response = Self.parse(received, complete: false) { return (.success(response), true) }
                    let chunk = try socket.readSome()
                    if chunk.isEmpty { break }
                    received += chunk
                }
                guard let response = Self.parse(received, complete: true) else {
                    return (.failure(LiveError(.network, "\(method) \(path): no HTTP response")), true)
                }
                return (.success(response), true)
            } catch {
                return (.failure(error), true)
            }
        }
    }

    /// Parses a whole response; `nil` while incomplete.
    static func parse(_ bytes: [UInt8], complete: Bool) -> Response? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == separator })
        else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var length: Int?
        for line in lines.dropFirst() {
            let pair = line.split(separator: ":", maxSplits: 1)
            if pair.count == 2, pair[0].lowercased() == "content-length" {
                length = Int(pair[1].trimmingCharacters(in: " \t"))
            }
        }
        let body = Array(bytes[(end + 4)...])
        if let length {
            guard body.count >= length else { return nil }
            return Response(status: status, body: Array(body.prefix(length)))
        }
        return complete ? Response(status: status, body: body) : nil
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isLetter && byte < 128 || c.isNumber && byte < 128 || "-._~".contains(c) {
                out.append(c)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
