#if canImport(Glibc)
    import Glibc
#endif

/// A `host[:port]` pair as written in the line's `server` and `outbound_proxy` fields.
///
/// The host is a DNS name, an IPv4 address, or an IPv6 address in brackets (`[::1]:5060`,
/// RFC 3986 §3.2.2). The port, when present, is 1…65535.
public struct LineServer: Sendable, Hashable, CustomStringConvertible {
    /// The host without brackets (`::1`, `pbx.example.com`).
    public var host: String
    /// The explicit port, or nil when the transport's default applies.
    public var port: Int?

    public init(host: String, port: Int? = nil) {
        self.host = host
        self.port = port
    }

    /// Parses `host`, `host:port`, `[v6]` or `[v6]:port`; `field` names the line field in errors.
    public init(parsing text: String, field: String = "server") throws(LineError) {
        let trimmed = text.lineTrimmed()
        guard !trimmed.isEmpty else { throw LineError(.badServer, field: field, "empty host") }
        var host: Substring
        var portText: Substring?
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else {
                throw LineError(.badServer, field: field, "unclosed '[' in \"\(trimmed)\"")
            }
            host = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
            let rest = trimmed[trimmed.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else {
                    throw LineError(.badServer, field: field, "unexpected text after ']' in \"\(trimmed)\"")
                }
                portText = rest.dropFirst()
            }
            guard SIPURI.ipv6Bytes(String(host)) != nil else {
                throw LineError(.badServer, field: field, "\"\(host)\" is not an IPv6 address")
            }
        } else {
            let colons = trimmed.filter { $0 == ":" }.count
            if colons > 1 {
                throw LineError(.badServer, field: field, "IPv6 address must be in brackets: \"[\(trimmed)]\"")
            }
            if let colon = trimmed.firstIndex(of: ":") {
                host = trimmed[..<colon]
                portText = trimmed[trimmed.index(after: colon)...]
            } else {
                host = Substring(trimmed)
            }
            guard !host.isEmpty else { throw LineError(.badServer, field: field, "empty host in \"\(trimmed)\"") }
            guard host.utf8.allSatisfy(LineServer.isHostByte) else {
                throw LineError(.badServer, field: field, "invalid character in host \"\(host)\"")
            }
            // Digits and dots only: an IPv4 address (RFC 3986 §3.2.2), not a name to look up.
            if host.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }) {
                var address = in_addr()
                guard inet_pton(AF_INET, String(host), &address) == 1 else {
                    throw LineError(.badServer, field: field, "\"\(host)\" is not an IPv4 address")
                }
            }
        }
        self.host = String(host)
        if let portText {
            guard let port = Int(portText), portText.allSatisfy(\.isLineDigit) else {
                throw LineError(.badPort, field: field, "port \"\(portText)\" is not a number")
            }
            guard (1...65535).contains(port) else {
                throw LineError(.badPort, field: field, "port \(port) out of range 1…65535")
            }
            self.port = port
        } else {
            self.port = nil
        }
    }

    /// RFC 3986 §3.2.2 reg-name characters we accept in a host: letters, digits, `-`, `.`, `_`.
    static func isHostByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E
            || b == 0x5F
    }

    /// `host`, `host:port`, or `[v6]:port`.
    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        if let port { return "\(h):\(port)" }
        return h
    }
}

extension Character {
    var isLineDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs, CR and LF (no Foundation needed).
    func lineTrimmed() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
