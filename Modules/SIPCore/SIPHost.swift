/// The host part of a SIP URI or Via sent-by (RFC 3261 §25.1 `host`; RFC 5118 IPv6 references).
public struct SIPHost: Sendable, Hashable, CustomStringConvertible {
    /// How the host is written.
    public enum Kind: Sendable, Hashable {
        /// A DNS name (compare case-insensitively, RFC 3261 §19.1.4).
        case name
        /// A dotted IPv4 address.
        case ipv4
        /// An IPv6 address; ``address`` holds it without brackets.
        case ipv6
    }

    public var kind: Kind
    /// The name or address, IPv6 without `[` `]`.
    public var address: String

    public init(kind: Kind, address: String) {
        self.kind = kind
        self.address = address
    }

    /// Classifies `text`: `[…]` or anything with a colon is IPv6, digits and dots IPv4.
    public init(_ text: String) {
        if text.hasPrefix("["), text.hasSuffix("]") {
            self.init(kind: .ipv6, address: String(text.dropFirst().dropLast()))
        } else if text.utf8.contains(ByteClass.colon) {
            self.init(kind: .ipv6, address: text)
        } else if !text.isEmpty, text.utf8.allSatisfy({ ByteClass.isDigit($0) || $0 == ByteClass.dot }) {
            self.init(kind: .ipv4, address: text)
        } else {
            self.init(kind: .name, address: text)
        }
    }

    /// The host as written in a URI: IPv6 in brackets (RFC 3261 §25.1 `IPv6reference`).
    public var description: String { kind == .ipv6 ? "[" + address + "]" : address }

    init(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, kind: Kind) {
        if kind == .ipv6, range.count >= 2, p[range.lowerBound] == ByteClass.leftBracket {
            self.init(kind: .ipv6, address: p.string(range.lowerBound + 1..<range.upperBound - 1))
        } else {
            self.init(kind: kind, address: p.string(range))
        }
    }
}
