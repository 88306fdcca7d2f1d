/// One HTTP/1.1 request as ``HTTPRequestParser`` delivers it (RFC 9112 §3): method, origin-form
/// target split into a decoded path and query, header fields in order, and the body.
public struct HTTPRequest: Sendable, Hashable {
    /// The method token, case-sensitive (RFC 9110 §9.1): `GET`, `POST`, …
    public var method: String
    /// The request-target exactly as received (origin-form, RFC 9112 §3.2.1).
    public var target: String
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    /// Header fields in received order; names as received (compare case-insensitively).
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// The percent-decoded path of ``target``.
    public var path: String
    /// The decoded query parameters (`+` is a space); a repeated name keeps its last value.
    public var query: [String: String]

    public init(
        method: String, target: String, version: String = "HTTP/1.1", headers: [HTTPHeader] = [],
        body: [UInt8] = []
    ) throws(HTTPParseError) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        (path, query) = try HTTPTarget.split(target)
    }

    /// The last value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.last { $0.name.lowercased() == lower }?.value
    }

    /// Whether the connection stays open after the response (RFC 9112 §9.3): HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool {
        let tokens = (header("Connection") ?? "").lowercased().split(separator: ",").map {
            $0.trimmingCharacters(in: " \t")
        }
        if version == "HTTP/1.0" { return tokens.contains("keep-alive") }
        return !tokens.contains("close")
    }

    /// The body as UTF-8 text (lossy).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// One header field.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

/// Splitting and percent-decoding an origin-form target (RFC 3986 §2.1, §3.3, §3.4).
enum HTTPTarget {
    static func split(_ target: String) throws(HTTPParseError) -> (String, [String: String]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = try decode(parts[0], plusIsSpace: false)
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&", omittingEmptySubsequences: true) {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = try decode(kv[0], plusIsSpace: true)
                query[key] = kv.count == 2 ? try decode(kv[1], plusIsSpace: true) : ""
            }
        }
        return (path, query)
    }

    static func decode(_ text: Substring, plusIsSpace: Bool) throws(HTTPParseError) -> String {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let b = bytes.first {
            bytes = bytes.dropFirst()
            if b == UInt8(ascii: "%") {
                guard bytes.count >= 2, let hi = hexValue(bytes[bytes.startIndex]),
                    let lo = hexValue(bytes[bytes.startIndex + 1])
                else { throw HTTPParseError(.badTarget, "bad percent-encoding in the request target") }
                out.append(hi << 4 | lo)
                bytes = bytes.dropFirst(2)
            } else if b == UInt8(ascii: "+") && plusIsSpace {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(b)
            }
        }
        guard let decoded = String(validating: out, as: UTF8.self) else {
            throw HTTPParseError(.badTarget, "request target is not UTF-8 once decoded")
        }
        return decoded
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// `application/x-www-form-urlencoded` bodies (WHATWG URL §5.1; an OAuth token request, RFC 6749
/// §4.1.3): the same pairs and percent-decoding as a query.
public enum HTTPForm {
    /// The fields of `body`, or nil when it is not valid form encoding (bad `%`, not UTF-8).
    public static func fields(_ body: [UInt8]) -> [String: String]? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        return try? HTTPTarget.split("?" + text).1
    }
}
