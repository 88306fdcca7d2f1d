/// The `sent-by` of a Via (`host [":" port]`, RFC 3261 §20.42), normalised for the client
/// transport's check of RFC 3261 §18.1.2: the host compares case-insensitively (IPv6 without
/// brackets), the port exactly — a missing port is not the same as an explicit 5060, because a
/// response must carry back the Via value the client inserted unchanged (§18.2.1 only adds
/// parameters).
public struct ViaSentBy: Sendable, Hashable, CustomStringConvertible {
    /// Lower-cased host; IPv6 without `[` `]`.
    public let host: String
    public let port: UInt16?

    /// - Parameters:
    ///   - host: a name, IPv4 address, or IPv6 address with or without brackets.
    ///   - port: the sent-by port, or nil when the Via has none (§18.2.2: the transport's default).
    public init(host: String, port: UInt16?) {
        self.host = SIPHost(host).address.lowercasedASCII
        self.port = port
    }

    /// The sent-by of `via`.
    public init(_ via: SIPVia) {
        self.host = via.host.address.lowercasedASCII
        self.port = via.port
    }

    init(_ p: UnsafeBufferPointer<UInt8>, host range: Range<Int>, kind: SIPHost.Kind, port: UInt16?) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(range.count)
        for i in range where !(kind == .ipv6 && (p[i] == ByteClass.leftBracket || p[i] == ByteClass.rightBracket)) {
            bytes.append(ByteClass.lower(p[i]))
        }
        self.host = String(decoding: bytes, as: UTF8.self)
        self.port = port
    }

    public var description: String {
        let h = host.utf8.contains(ByteClass.colon) ? "[" + host + "]" : host
        return port.map { h + ":" + String($0) } ?? h
    }
}

/// What a client finds in the Via header fields of a response (RFC 3261 §8.1.3.3, §18.1.2).
public enum ResponseVia: Sendable, Hashable {
    /// No Via at all (or one that does not parse).
    case missing
    /// More than one Via value: a UAC discards the response (§8.1.3.3).
    case several
    /// Exactly one Via value, with its sent-by.
    case single(ViaSentBy)
}
