/// One `a=` line (RFC 8866 §5.13): a property (`a=rtcp-mux`) or a `name:value` pair.
///
/// Media and session descriptions keep their attributes in order as these raw values, so
/// attributes we do not understand are preserved byte for byte; typed views
/// (``MediaDescription/rtpMaps``, ``MediaDescription/crypto``…) parse them on demand.
public struct SDPAttribute: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var name: String
    public var value: String?

    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// The text after `a=`.
    public var line: String { value.map { "\(name):\($0)" } ?? name }

    /// Parses the text after `a=`.
    public init(line: Substring) {
        if let colon = line.firstIndex(of: ":") {
            name = String(line[..<colon])
            value = String(line[line.index(after: colon)...])
        } else {
            name = String(line)
            value = nil
        }
    }

    /// Printing shows ``redactedLine``: SDES keys never reach a log.
    public var description: String { redactedLine }
    public var debugDescription: String { redactedLine }
    public var customMirror: Mirror { Mirror(self, children: ["line": redactedLine]) }

    /// The line with any SRTP key material replaced by `<redacted>` (for logs).
    public var redactedLine: String {
        guard name == "crypto", let value else { return line }
        return "crypto:"
            + value.split(separator: " ", omittingEmptySubsequences: false).map { field in
                field.hasPrefix("inline:") ? "inline:<redacted>" : String(field)
            }.joined(separator: " ")
    }
}

/// RFC 3264 §5.1 / RFC 8866 §6.7 media direction; `inactive`/`sendonly` put a call on hold.
public enum MediaDirection: String, Sendable, Hashable, CaseIterable {
    case sendrecv
    case sendonly
    case recvonly
    case inactive

    /// The direction an answerer mirrors (RFC 3264 §6.1): sendonly ↔ recvonly.
    public var reversed: MediaDirection {
        switch self {
        case .sendrecv: .sendrecv
        case .sendonly: .recvonly
        case .recvonly: .sendonly
        case .inactive: .inactive
        }
    }

    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    /// The intersection of what we want and what the peer allows (from our point of view).
    public func intersect(_ other: MediaDirection) -> MediaDirection {
        switch (sends && other.sends, receives && other.receives) {
        case (true, true): .sendrecv
        case (true, false): .sendonly
        case (false, true): .recvonly
        case (false, false): .inactive
        }
    }
}

/// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]` (RFC 8866 §6.6).
public struct RTPMap: Sendable, Hashable {
    public var payloadType: UInt8
    public var encodingName: String
    public var clockRate: Int
    public var channels: Int?

    public init(payloadType: UInt8, encodingName: String, clockRate: Int, channels: Int? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
    }

    public init(parsing value: String) throws(MediaError) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let pt = UInt8(parts[0]), pt < 128 else {
            throw MediaError(.badSDPField, "rtpmap '\(value)'")
        }
        let enc = parts[1].split(separator: "/")
        guard enc.count >= 2, enc.count <= 3, let rate = Int(enc[1]), rate > 0 else {
            throw MediaError(.badSDPField, "rtpmap '\(value)'")
        }
        var channels: Int?
        if enc.count == 3 {
            guard let c = Int(enc[2]) else { throw MediaError(.badSDPField, "rtpmap '\(value)'") }
            channels = c
        }
        self.init(payloadType: pt, encodingName: String(enc[0]), clockRate: rate, channels: channels)
    }

    public var value: String { "\(payloadType) \(encodingName)/\(clockRate)" + (channels.map { "/\($0)" } ?? "") }
}

/// `a=setup` (RFC 4145 §4, RFC 5763 §5): the DTLS role.
public enum SetupRole: String, Sendable, Hashable {
    case active
    case passive
    case actpass
    case holdconn

    /// The role an answerer takes (RFC 5763 §5: answer `active` to `actpass`).
    public var answer: SetupRole {
        switch self {
        case .actpass, .passive: .active
        case .active: .passive
        case .holdconn: .holdconn
        }
    }
}

/// `a=fingerprint:<hash-func> <XX:XX:…>` (RFC 8122 §5, used by RFC 5763).
public struct CertificateFingerprint: Sendable, Hashable {
    public var hashFunction: String
    public var bytes: [UInt8]

    public init(hashFunction: String, bytes: [UInt8]) {
        self.hashFunction = hashFunction
        self.bytes = bytes
    }

    public init(parsing value: String) throws(MediaError) {
        let parts = value.split(separator: " ")
        guard parts.count == 2 else { throw MediaError(.badSDPField, "fingerprint '\(value)'") }
        var out: [UInt8] = []
        for hex in parts[1].split(separator: ":") {
            guard hex.count == 2, let b = UInt8(hex, radix: 16) else {
                throw MediaError(.badSDPField, "fingerprint '\(value)'")
            }
            out.append(b)
        }
        guard !out.isEmpty else { throw MediaError(.badSDPField, "fingerprint '\(value)'") }
        self.init(hashFunction: parts[0].lowercased(), bytes: out)
    }

    public var value: String {
        hashFunction + " "
            + bytes.map { b in
                let s = String(b, radix: 16, uppercase: true)
                return s.count == 1 ? "0" + s : s
            }.joined(separator: ":")
    }
}

/// `a=group:<semantics> <mid>…` (RFC 5888 §5; BUNDLE RFC 9143).
public struct SDPGroup: Sendable, Hashable {
    public var semantics: String
    public var mids: [String]
    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }
    public init(parsing value: String) throws(MediaError) {
        let parts = value.split(separator: " ").map(String.init)
        guard let first = parts.first else { throw MediaError(.badSDPField, "group '\(value)'") }
        self.init(semantics: first, mids: Array(parts.dropFirst()))
    }
    public var value: String { ([semantics] + mids).joined(separator: " ") }
}

/// `a=rtcp:<port> [IN IP4 <addr>]` (RFC 3605 §2.1).
public struct RTCPAttribute: Sendable, Hashable {
    public var port: UInt16
    public var address: String?
    public init(port: UInt16, address: String? = nil) {
        self.port = port
        self.address = address
    }
    public init(parsing value: String) throws(MediaError) {
        let parts = value.split(separator: " ")
        guard let first = parts.first, let port = UInt16(first), parts.count == 1 || parts.count == 4 else {
            throw MediaError(.badSDPField, "rtcp '\(value)'")
        }
        self.init(port: port, address: parts.count == 4 ? String(parts[3]) : nil)
    }
    public var value: String {
        guard let address else { return "\(port)" }
        return "\(port) IN \(address.contains(":") ? "IP6" : "IP4") \(address)"
    }
}
