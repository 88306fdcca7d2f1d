import COpenSSL
import SIPCore

/// The client side of the RFC 6455 §4.1 opening handshake with the RFC 7118 §4.1 `sip`
/// subprotocol: builds the GET request, then checks the server's answer — status 101,
/// `Upgrade: websocket`, `Connection: Upgrade`, `Sec-WebSocket-Accept` = base64(SHA-1(key +
/// GUID)) (§4.2.2) and `Sec-WebSocket-Protocol` = one of the offered protocols.
public struct WebSocketHandshake: Sendable {
    /// §1.3 GUID appended to the key before hashing.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// The answer head is refused beyond this size.
    public static let maxResponseHeadSize = 16_384

    public enum Outcome: Sendable, Equatable {
        /// The response head is not complete yet.
        case needMoreData
        /// Upgraded: the chosen subprotocol and any bytes after the head (first frames).
        case accepted(subprotocol: String, leftover: [UInt8])
        /// Refused; `code` is `.webSocketHandshakeFailed` or `.subprotocolRefused`.
        case refused(TransportError)
    }

    public let host: String
    public let path: String
    public let key: String
    public let protocols: [String]
    public let origin: String?
    private var received: [UInt8] = []

    /// - Parameters:
    ///   - host: the `Host` header value (`host[:port]`, §4.1 item 4).
    ///   - path: the request target (`/ws` for most SIP servers, RFC 7118 §5).
    ///   - protocols: the subprotocols asked for (`sip`, RFC 7118 §4.1); the answer must pick one.
    ///   - origin: the `Origin` header, sent only when given (§4.1 item 8).
    ///   - nonce: the 16 random bytes of the key come from it (§4.1 item 7).
    public init(
        host: String, path: String = "/ws", protocols: [String] = ["sip"], origin: String? = nil,
        nonce: any IdentifierSource = SystemIdentifierSource()
    ) {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let v = nonce.nextUInt64()
            for s in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8((v >> UInt64(s)) & 0xFF)) }
        }
        self.init(host: host, path: path, key: Self.base64(bytes), protocols: protocols, origin: origin)
    }

    /// With an explicit `Sec-WebSocket-Key` (tests, RFC examples).
    public init(host: String, path: String, key: String, protocols: [String] = ["sip"], origin: String? = nil) {
        self.host = host
        self.path = path.isEmpty ? "/" : path
        self.key = key
        self.protocols = protocols
        self.origin = origin
    }

    /// The GET request bytes (§4.1).
    public func request() -> [UInt8] {
        var text = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\n"
        if let origin { text += "Origin: \(origin)\r\n" }
        if !protocols.isEmpty { text += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
        text += "Sec-WebSocket-Version: 13\r\n\r\n"
        return Array(text.utf8)
    }

    /// The `Sec-WebSocket-Accept` value the server must send for `key` (§4.2.2 item 5.4).
    public static func acceptValue(for key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = input.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha1(), nil)
        }
        return base64(Array(digest[0..<Int(length)]))
    }

    static func base64(_ bytes: [UInt8]) -> String {
        var out = [UInt8](repeating: 0, count: 4 * ((bytes.count + 2) / 3) + 1)
        let n = EVP_EncodeBlock(&out, bytes, Int32(bytes.count))
        return String(decoding: out[0..<Int(n)], as: UTF8.self)
    }

    /// Feeds bytes of the server's answer.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> Outcome {
        received.append(contentsOf: bytes)
        guard let end = Self.headEnd(received) else {
            if received.count > Self.maxResponseHeadSize {
                return .refused(
                    TransportError(.webSocketHandshakeFailed, "response head exceeds \(Self.maxResponseHeadSize) bytes")
                )
            }
            return .needMoreData
        }
        let head = String(decoding: received[0..<end], as: UTF8.self)
        let leftover = Array(received[(end + 4)...])
        return verify(head: head, leftover: leftover)
    }

    private func verify(head: String, leftover: [UInt8]) -> Outcome {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let status = lines.first ?? ""
        let parts = status.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.1") else {
            return .refused(TransportError(.webSocketHandshakeFailed, "not an HTTP/1.1 response: \(status.prefix(80))"))
        }
        guard parts[1] == "101" else {
            return .refused(
                TransportError(
                    .webSocketHandshakeFailed, "expected 101 Switching Protocols, got \(status.prefix(80)) (§4.1)"))
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingSpaces().lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces()
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        guard headers["upgrade"]?.lowercased() == "websocket" else {
            return .refused(TransportError(.webSocketHandshakeFailed, "missing Upgrade: websocket (§4.1 item 2)"))
        }
        let connection = (headers["connection"] ?? "").lowercased().split(separator: ",").map { $0.trimmingSpaces() }
        guard connection.contains("upgrade") else {
            return .refused(TransportError(.webSocketHandshakeFailed, "missing Connection: Upgrade (§4.1 item 3)"))
        }
        let expected = Self.acceptValue(for: key)
        guard headers["sec-websocket-accept"] == expected else {
            return .refused(
                TransportError(
                    .webSocketHandshakeFailed,
                    "Sec-WebSocket-Accept \(headers["sec-websocket-accept"] ?? "missing") does not match \(expected) (§4.1 item 4)"
                ))
        }
        if let extensions = headers["sec-websocket-extensions"], !extensions.isEmpty {
            return .refused(
                TransportError(
                    .webSocketHandshakeFailed, "server chose extension(s) we did not offer: \(extensions) (§4.1 item 5)"
                ))
        }
        if protocols.isEmpty { return .accepted(subprotocol: "", leftover: leftover) }
        guard let chosen = headers["sec-websocket-protocol"], !chosen.isEmpty else {
            return .refused(
                TransportError(
                    .subprotocolRefused,
                    "server answered without Sec-WebSocket-Protocol; \(protocols.joined(separator: ", ")) is required (RFC 7118 §4.1)"
                ))
        }
        guard protocols.contains(chosen) else {
            return .refused(
                TransportError(
                    .subprotocolRefused,
                    "server chose subprotocol \(chosen), we offered \(protocols.joined(separator: ", ")) (§4.1 item 6)")
            )
        }
        return .accepted(subprotocol: chosen, leftover: leftover)
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4)
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
