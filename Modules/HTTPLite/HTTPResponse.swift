/// An HTTP/1.1 response to serialize: status, reason, header fields and a body. Content-Length is
/// always written from the body; `Connection: close` when the connection ends after it.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var reason: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, reason: String? = nil, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.reason = reason ?? HTTPResponse.reason(for: status)
        self.headers = headers
        self.body = body
    }

    /// A JSON body (`application/json`), newline-terminated.
    public static func json(_ status: Int, _ json: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [HTTPHeader("Content-Type", "application/json")], body: Array((json + "\n").utf8))
    }

    /// A one-line plain-text body (errors).
    public static func text(_ status: Int, _ line: String) -> HTTPResponse {
        let clean = HTTPResponse.oneLine(line)
        return HTTPResponse(
            status: status, headers: [HTTPHeader("Content-Type", "text/plain; charset=utf-8")],
            body: Array((clean + "\n").utf8))
    }

    /// `text` with every CR and LF replaced by a space (no header or line injection).
    static func oneLine(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(scalar == "\r" || scalar == "\n" ? " " : scalar) }
        return String(out)
    }

    /// The response for a parse error: its status and one line naming the problem.
    public static func error(_ error: HTTPParseError) -> HTTPResponse { .text(error.status, error.detail) }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.last { $0.name.lowercased() == lower }?.value
    }

    /// The wire form.
    public func serialized(keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        for header in headers
        where header.name.lowercased() != "content-length" && header.name.lowercased() != "connection" {
            text += header.name + ": " + HTTPResponse.oneLine(header.value) + "\r\n"
        }
        text += "Content-Length: \(body.count)\r\n"
        if !keepAlive { text += "Connection: close\r\n" }
        text += "\r\n"
        // One allocation for head and body (a metrics body can be megabytes).
        var wire: [UInt8] = []
        wire.reserveCapacity(text.utf8.count + body.count)
        wire += text.utf8
        wire += body
        return wire
    }

    /// RFC 9110 §15 reason phrases for the codes this server uses.
    public static func reason(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

/// A parsed response (tests and small clients): status, headers, body.
public struct HTTPResponseHead: Sendable, Hashable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    /// Parses one whole response framed by Content-Length; nil when incomplete or malformed.
    public static func parse(_ bytes: [UInt8]) -> (HTTPResponseHead, consumed: Int)? {
        guard let end = HTTPRequestParser.find([13, 10, 13, 10], in: bytes, limit: bytes.count) else { return nil }
        let lines = HTTPRequestParser.split(Array(bytes[0..<end]))
        let statusLine = String(decoding: lines[0], as: UTF8.self).split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [HTTPHeader] = []
        for line in lines.dropFirst() {
            guard let header = try? HTTPRequestParser.parseHeader(String(decoding: line, as: UTF8.self)) else {
                return nil
            }
            headers.append(header)
        }
        let length = headers.last { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        guard bytes.count >= end + 4 + length else { return nil }
        return (
            HTTPResponseHead(status: status, headers: headers, body: Array(bytes[end + 4..<end + 4 + length])),
            end + 4 + length
        )
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}
