/// An SDP session description (RFC 8866 §5), value type; parse with ``init(parsing:)`` and
/// serialize with ``serialized()``. Attributes not understood are preserved in order.
///
/// ``description`` prints the SDP with SRTP keys redacted, so logging a description is safe.
public struct SessionDescription: Sendable, Hashable, CustomStringConvertible {
    public var version: Int = 0
    public var origin: SDPOrigin
    public var sessionName: String
    public var information: String?
    public var uri: String?
    public var emails: [String] = []
    public var phones: [String] = []
    public var connection: SDPConnection?
    public var bandwidths: [String] = []
    /// `t=` lines, each with the `r=` lines following it, verbatim (`"0 0"`).
    public var timings: [SDPTiming] = [SDPTiming()]
    /// `z=`, verbatim.
    public var timeZones: String?
    public var encryptionKey: String?
    /// Session-level `a=` lines, in order.
    public var attributes: [SDPAttribute] = []
    public var media: [MediaDescription] = []

    public init(
        origin: SDPOrigin, sessionName: String = "-", connection: SDPConnection? = nil,
        attributes: [SDPAttribute] = [], media: [MediaDescription] = []
    ) {
        self.origin = origin
        self.sessionName = sessionName
        self.connection = connection
        self.attributes = attributes
        self.media = media
    }

    /// `a=group` lines (RFC 5888), e.g. BUNDLE (RFC 9143).
    public var groups: [SDPGroup] {
        attributes.filter { $0.name == "group" }.compactMap { try? SDPGroup(parsing: $0.value ?? "") }
    }

    /// Session-level attribute value.
    public func attribute(_ name: String) -> String? { attributes.first { $0.name == name }.map { $0.value ?? "" } }

    /// The connection that applies to media section `index` (its own or the session's).
    public func effectiveConnection(of index: Int) -> SDPConnection? { media[index].connection ?? connection }

    /// The direction of media section `index`, honouring a session-level direction attribute.
    public func effectiveDirection(of index: Int) -> MediaDirection {
        if media[index].attributes.contains(where: { MediaDirection(rawValue: $0.name) != nil }) {
            return media[index].direction
        }
        return attributes.lazy.compactMap { MediaDirection(rawValue: $0.name) }.first ?? .sendrecv
    }

    /// The wire form, CRLF line ends (RFC 8866 §5).
    public func serialized() -> String { render(redacting: false) }

    public var description: String { render(redacting: true) }

    private func render(redacting: Bool) -> String {
        var lines: [String] = ["v=\(version)", "o=\(origin.value)", "s=\(sessionName)"]
        if let information { lines.append("i=\(information)") }
        if let uri { lines.append("u=\(uri)") }
        lines += emails.map { "e=\($0)" } + phones.map { "p=\($0)" }
        if let connection { lines.append("c=\(connection.value)") }
        lines += bandwidths.map { "b=\($0)" }
        for t in timings {
            lines.append("t=\(t.value)")
            lines += t.repeats.map { "r=\($0)" }
        }
        if let timeZones { lines.append("z=\(timeZones)") }
        if let encryptionKey { lines.append("k=\(redacting ? "<redacted>" : encryptionKey)") }
        lines += attributes.map { "a=" + (redacting ? $0.redactedLine : $0.line) }
        for m in media {
            var mline = "m=\(m.media) \(m.port)"
            if let count = m.portCount { mline += "/\(count)" }
            mline += " \(m.proto)"
            if !m.formats.isEmpty { mline += " " + m.formats.joined(separator: " ") }
            lines.append(mline)
            if let info = m.information { lines.append("i=\(info)") }
            if let c = m.connection { lines.append("c=\(c.value)") }
            lines += m.bandwidths.map { "b=\($0)" }
            if let k = m.encryptionKey { lines.append("k=\(redacting ? "<redacted>" : k)") }
            lines += m.attributes.map { "a=" + (redacting ? $0.redactedLine : $0.line) }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

/// `o=<username> <sess-id> <sess-version> IN <IP4|IP6> <address>` (RFC 8866 §5.2).
public struct SDPOrigin: Sendable, Hashable {
    public var username: String
    public var sessionID: String
    /// Incremented by one in each new offer/answer of the session (RFC 3264 §8).
    public var sessionVersion: UInt64
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(username: String = "-", sessionID: String, sessionVersion: UInt64, address: String) {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = "IN"
        self.addressType = address.contains(":") ? "IP6" : "IP4"
        self.address = address
    }

    init(parsing value: String) throws(MediaError) {
        let f = value.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard f.count == 6, let version = UInt64(f[2]), !f[1].isEmpty else {
            throw MediaError(.badSDPField, "o= '\(value)'")
        }
        username = f[0]
        sessionID = f[1]
        sessionVersion = version
        networkType = f[3]
        addressType = f[4]
        address = f[5]
    }

    var value: String { "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)" }
}

/// `c=IN <IP4|IP6> <address>[/ttl][/count]` (RFC 8866 §5.7).
public struct SDPConnection: Sendable, Hashable {
    public var networkType: String
    public var addressType: String
    /// The address, with any `/ttl/count` suffix kept.
    public var address: String

    public init(address: String) {
        networkType = "IN"
        addressType = address.contains(":") ? "IP6" : "IP4"
        self.address = address
    }

    init(parsing value: String) throws(MediaError) {
        let f = value.split(separator: " ").map(String.init)
        guard f.count == 3, f[0] == "IN", f[1] == "IP4" || f[1] == "IP6" else {
            throw MediaError(.badSDPField, "c= '\(value)'")
        }
        networkType = f[0]
        addressType = f[1]
        address = f[2]
        if f[1] == "IP4" {
            let host = address.split(separator: "/").first.map(String.init) ?? ""
            let octets = host.split(separator: ".", omittingEmptySubsequences: false)
            guard octets.count == 4 || !host.allSatisfy({ $0.isNumber || $0 == "." }) else {
                throw MediaError(.badSDPField, "c= address '\(host)'")
            }
            if octets.count == 4 && octets.contains(where: { UInt8($0) == nil }) {
                throw MediaError(.badSDPField, "c= address '\(host)'")
            }
        }
    }

    /// The address without `/ttl` or `/count`.
    public var host: String { address.split(separator: "/").first.map(String.init) ?? address }

    /// RFC 3264 §8.4 (legacy RFC 2543 hold): `c=IN IP4 0.0.0.0`.
    public var isNullAddress: Bool { host == "0.0.0.0" || host == "::" }

    var value: String { "\(networkType) \(addressType) \(address)" }
}

/// `t=<start> <stop>` and its `r=` lines (RFC 8866 §5.9, §5.10).
public struct SDPTiming: Sendable, Hashable {
    public var start: UInt64
    public var stop: UInt64
    public var repeats: [String]
    public init(start: UInt64 = 0, stop: UInt64 = 0, repeats: [String] = []) {
        self.start = start
        self.stop = stop
        self.repeats = repeats
    }
    var value: String { "\(start) \(stop)" }
}
