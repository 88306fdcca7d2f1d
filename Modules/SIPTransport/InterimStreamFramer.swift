/// TEMPORARY stand-in for SIPCore's `SIPStreamFramer` until it is merged: splits a TCP/TLS
/// byte stream into messages by the header end and Content-Length (RFC 3261 §18.3), and
/// recognises RFC 5626 §4.4.1 CRLF keep-alives. Deleted when the real framer lands.
struct InterimStreamFramer: Sendable {
    enum Output: Sendable, Equatable {
        case message([UInt8])
        case keepAlivePing
        case keepAlivePong
    }

    struct FramingError: Error { let reason: String }

    var maxMessageSize: Int
    private var buffer: [UInt8] = []

    init(maxMessageSize: Int = 1 << 20) { self.maxMessageSize = maxMessageSize }

    var bufferedByteCount: Int { buffer.count }

    mutating func append(_ bytes: [UInt8]) { buffer += bytes }

    mutating func next() throws(FramingError) -> Output? {
        if buffer.first == 13 || buffer.first == 10 {
            if buffer.starts(with: [13, 10, 13, 10]) {
                buffer.removeFirst(4)
                return .keepAlivePing
            }
            // A lone CRLF at the end of what arrived is the pong (RFC 5626 §4.4.1).
            if buffer.count >= 2 {
                if buffer.starts(with: [13, 10]) {
                    buffer.removeFirst(2)
                    return .keepAlivePong
                }
                buffer.removeFirst()
                return try next()
            }
            return nil
        }
        guard let end = WebSocketHandshake.headEnd(buffer) else {
            if buffer.count > maxMessageSize {
                throw FramingError(reason: "header section exceeds \(maxMessageSize) bytes")
            }
            return nil
        }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        var length: Int?
        for line in head.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingSpaces().lowercased()
            if name == "content-length" || name == "l" {
                guard let value = Int(line[line.index(after: colon)...].trimmingSpaces()), value >= 0 else {
                    throw FramingError(reason: "bad Content-Length")
                }
                length = value
            }
        }
        guard let length else { throw FramingError(reason: "no Content-Length on a stream transport (RFC 3261 §18.3)") }
        let total = end + 4 + length
        if total > maxMessageSize { throw FramingError(reason: "message of \(total) bytes exceeds \(maxMessageSize)") }
        guard buffer.count >= total else { return nil }
        let message = Array(buffer[0..<total])
        buffer.removeFirst(total)
        return .message(message)
    }
}
