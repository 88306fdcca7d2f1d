/// Limits of ``HTTPRequestParser``; a request over a limit is refused, never buffered.
public struct HTTPParserLimits: Sendable, Hashable {
    /// Request line + header section, terminator included.
    public var maxHeaderBytes: Int
    public var maxHeaderCount: Int
    public var maxBodyBytes: Int

    public init(maxHeaderBytes: Int = 8_192, maxHeaderCount: Int = 64, maxBodyBytes: Int = 65_536) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}

/// An incremental, strict HTTP/1.1 request parser (RFC 9112) — a pure value, no IO.
///
/// Feed bytes as they arrive with ``append(_:)``, then call ``next()`` until it says
/// `.needMoreData`; pipelined requests come out one by one. Strict on purpose (this server only
/// talks to our own clients): CRLF line ends only, no obs-fold, no whitespace before the colon,
/// origin-form targets, Content-Length bodies only (Transfer-Encoding → 501), Host required on
/// HTTP/1.1. After an error the parser stays failed: the shell answers and closes.
///
/// States: *head* (waiting for the empty line ending the header section, RFC 9112 §2.1) →
/// *body* (waiting for Content-Length octets, §6.3) → *head* again; or *failed*.
public struct HTTPRequestParser: Sendable {
    public enum Step: Sendable, Hashable {
        /// No complete request buffered.
        case needMoreData
        /// One complete request.
        case request(HTTPRequest)
    }

    private enum State: Sendable {
        case head
        case body(HTTPRequest, length: Int)
        case failed(HTTPParseError)
    }

    public let limits: HTTPParserLimits
    private var buffer: [UInt8] = []
    private var state: State = .head

    public init(limits: HTTPParserLimits = HTTPParserLimits()) { self.limits = limits }

    /// Buffered octets not yet consumed by a request.
    public var bufferedCount: Int { buffer.count }

    public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) { buffer.append(contentsOf: bytes) }

    /// The next complete request, `.needMoreData`, or the error that ends the connection.
    public mutating func next() throws(HTTPParseError) -> Step {
        switch state {
        case .failed(let error):
            throw error
        case .head:
            do {
                guard let (request, length) = try parseHead() else { return .needMoreData }
                state = .body(request, length: length)
                return try next()
            } catch {
                state = .failed(error)
                throw error
            }
        case .body(var request, let length):
            guard buffer.count >= length else { return .needMoreData }
            request.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
            state = .head
            return .request(request)
        }
    }

    private static let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private mutating func parseHead() throws(HTTPParseError) -> (HTTPRequest, Int)? {
        // RFC 9112 §2.2: ignore at least one empty line (CRLF) before the request line.
        while buffer.count >= 2, buffer[0] == 13, buffer[1] == 10 { buffer.removeFirst(2) }
        guard let end = Self.find(Self.crlfcrlf, in: buffer, limit: limits.maxHeaderBytes) else {
            if buffer.count > limits.maxHeaderBytes {
                throw HTTPParseError(.headerTooLarge, "header section over \(limits.maxHeaderBytes) bytes")
            }
            if let lf = buffer.firstIndex(of: 10), lf == 0 || buffer[lf - 1] != 13 {
                throw HTTPParseError(.badHeader, "bare LF line end (CRLF required)")
            }
            return nil
        }
        let head = Array(buffer[0..<end])
        buffer.removeFirst(end + 4)
        var lines = Self.split(head)
        let requestLine = try Self.checkedLine(lines.removeFirst())
        let (method, target, version) = try Self.parseRequestLine(requestLine)
        guard lines.count <= limits.maxHeaderCount else {
            throw HTTPParseError(.tooManyHeaders, "more than \(limits.maxHeaderCount) header fields")
        }
        var headers: [HTTPHeader] = []
        for line in lines { headers.append(try Self.parseHeader(try Self.checkedLine(line))) }
        var request = try HTTPRequest(method: method, target: target, version: version, headers: headers)
        let hosts = headers.filter { $0.name.lowercased() == "host" }
        if version == "HTTP/1.1" && hosts.count != 1 {
            throw HTTPParseError(.missingHost, hosts.isEmpty ? "HTTP/1.1 request without Host" : "several Host fields")
        }
        if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" }) {
            throw HTTPParseError(.transferEncoding, "Transfer-Encoding is not supported: send Content-Length")
        }
        var length = 0
        let lengths = Set(
            headers.filter { $0.name.lowercased() == "content-length" }.flatMap {
                $0.value.split(separator: ",", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: " \t")
                }
            })
        if let text = lengths.first {
            guard lengths.count == 1, !text.isEmpty, text.count <= 12, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = Int(text)
            else { throw HTTPParseError(.badContentLength, "Content-Length must be one decimal number") }
            length = value
        }
        guard length <= limits.maxBodyBytes else {
            throw HTTPParseError(.bodyTooLarge, "body of \(length) bytes over \(limits.maxBodyBytes)")
        }
        request.body = []
        return (request, length)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], limit: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        let last = min(haystack.count - needle.count, limit)
        var i = 0
        while i <= last {
            if haystack[i] == needle[0], haystack[i + 1] == needle[1], haystack[i + 2] == needle[2],
                haystack[i + 3] == needle[3]
            {
                return i
            }
            i += 1
        }
        return nil
    }

    static func split(_ head: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var i = 0
        while i + 1 < head.count {
            if head[i] == 13 && head[i + 1] == 10 {
                lines.append(head[start..<i])
                start = i + 2
                i += 2
            } else {
                i += 1
            }
        }
        lines.append(head[start..<head.count])
        return lines
    }

    /// A line as text: no bare CR/LF, no NUL or other CTL but HTAB (RFC 9110 §5.5), UTF-8.
    static func checkedLine(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> String {
        for b in bytes where (b < 0x20 && b != 9) || b == 0x7F {
            throw HTTPParseError(
                .badHeader, b == 10 ? "bare LF line end (CRLF required)" : "control character in the header section")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw HTTPParseError(.badHeader, "header section is not UTF-8")
        }
        return text
    }

    static func isToken(_ s: Substring) -> Bool {
        !s.isEmpty
            && s.utf8.allSatisfy { b in
                switch b {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: "!#$%&'*+-.^_`|~".utf8.contains(b)
                }
            }
    }

    static func parseRequestLine(_ line: String) throws(HTTPParseError) -> (String, String, String) {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]), !parts[1].isEmpty else {
            throw HTTPParseError(.badRequestLine, "request line must be 'METHOD /path HTTP/1.1'")
        }
        guard parts[1].hasPrefix("/") else {
            throw HTTPParseError(.badTarget, "request target must be origin-form (start with '/')")
        }
        guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            if parts[2].hasPrefix("HTTP/") { throw HTTPParseError(.unsupportedVersion, "only HTTP/1.1 and 1.0") }
            throw HTTPParseError(.badRequestLine, "request line must end in HTTP/1.1")
        }
        return (String(parts[0]), String(parts[1]), String(parts[2]))
    }

    static func parseHeader(_ line: String) throws(HTTPParseError) -> HTTPHeader {
        if line.first == " " || line.first == "\t" {
            throw HTTPParseError(.badHeader, "obsolete line folding is not accepted")
        }
        guard let colon = line.firstIndex(of: ":") else {
            throw HTTPParseError(.badHeader, "header line without ':'")
        }
        let name = line[..<colon]
        guard isToken(name) else {
            throw HTTPParseError(.badHeader, "bad header name (no whitespace before ':')")
        }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
        return HTTPHeader(String(name), value)
    }
}
