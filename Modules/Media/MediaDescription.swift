/// One media section, `m=` and the lines under it (RFC 8866 §5.14).
public struct MediaDescription: Sendable, Hashable {
    /// `audio`, `video`, `application`…
    public var media: String
    /// 0 rejects or disables the stream (RFC 3264 §5.1, §6).
    public var port: UInt16
    /// `m=audio 49170/2 …` port count, when given.
    public var portCount: Int?
    /// `RTP/AVP`, `RTP/SAVP`, `RTP/SAVPF`, `UDP/TLS/RTP/SAVPF`…
    public var proto: String
    /// Payload types (as text, in preference order).
    public var formats: [String]
    public var information: String?
    public var connection: SDPConnection?
    /// `b=` lines, verbatim (`AS:64`).
    public var bandwidths: [String]
    /// `k=` (obsolete), verbatim.
    public var encryptionKey: String?
    /// Every `a=` line, in order; unknown ones are preserved.
    public var attributes: [SDPAttribute]

    public init(
        media: String = "audio", port: UInt16, proto: String = "RTP/AVP", formats: [String],
        connection: SDPConnection? = nil, attributes: [SDPAttribute] = []
    ) {
        self.media = media
        self.port = port
        self.proto = proto
        self.formats = formats
        self.connection = connection
        self.bandwidths = []
        self.attributes = attributes
    }

    // MARK: Generic attribute access

    /// The value of the first attribute called `name` (`""` for a property attribute).
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }.map { $0.value ?? "" }
    }

    public func attributes(_ name: String) -> [String] {
        attributes.filter { $0.name == name }.map { $0.value ?? "" }
    }

    public func hasAttribute(_ name: String) -> Bool { attributes.contains { $0.name == name } }

    /// Replaces all attributes called `name` with `values` (at the first one's position).
    public mutating func setAttributes(_ name: String, _ values: [String?]) {
        let index = attributes.firstIndex { $0.name == name } ?? attributes.count
        attributes.removeAll { $0.name == name }
        attributes.insert(contentsOf: values.map { SDPAttribute(name, $0) }, at: min(index, attributes.count))
    }

    // MARK: Typed views (validated at parse time)

    /// RFC 3264 §5.1: the direction attribute; `sendrecv` when absent.
    public var direction: MediaDirection {
        get { attributes.lazy.compactMap { MediaDirection(rawValue: $0.name) }.first ?? .sendrecv }
        set {
            let index = attributes.firstIndex { MediaDirection(rawValue: $0.name) != nil } ?? attributes.count
            attributes.removeAll { MediaDirection(rawValue: $0.name) != nil }
            attributes.insert(SDPAttribute(newValue.rawValue), at: min(index, attributes.count))
        }
    }

    public var rtpMaps: [RTPMap] { attributes("rtpmap").compactMap { try? RTPMap(parsing: $0) } }

    /// `a=fmtp:<pt> <params>` for `payloadType`.
    public func formatParameters(for payloadType: UInt8) -> String? {
        for v in attributes("fmtp") {
            let parts = v.split(separator: " ", maxSplits: 1)
            if parts.first.flatMap({ UInt8($0) }) == payloadType { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }

    /// The encoding of `payloadType`: from rtpmap, else the RFC 3551 §6 static table.
    public func encoding(of payloadType: UInt8) -> RTPMap? {
        if let map = rtpMaps.first(where: { $0.payloadType == payloadType }) { return map }
        switch payloadType {
        case 0: return RTPMap(payloadType: 0, encodingName: "PCMU", clockRate: 8000)
        case 8: return RTPMap(payloadType: 8, encodingName: "PCMA", clockRate: 8000)
        case 9: return RTPMap(payloadType: 9, encodingName: "G722", clockRate: 8000)
        case 13: return RTPMap(payloadType: 13, encodingName: "CN", clockRate: 8000)
        case 18: return RTPMap(payloadType: 18, encodingName: "G729", clockRate: 8000)
        default: return nil
        }
    }

    /// `a=ptime` in milliseconds (RFC 8866 §6.4).
    public var ptime: Int? { attribute("ptime").flatMap { Int($0) } }
    public var rtcp: RTCPAttribute? { attribute("rtcp").flatMap { try? RTCPAttribute(parsing: $0) } }
    /// RFC 5761 §5.1.1.
    public var rtcpMux: Bool { hasAttribute("rtcp-mux") }
    /// RFC 4568 SDES crypto lines.
    public var crypto: [CryptoAttribute] { attributes("crypto").compactMap { try? CryptoAttribute(parsing: $0) } }
    public var fingerprints: [CertificateFingerprint] {
        attributes("fingerprint").compactMap { try? CertificateFingerprint(parsing: $0) }
    }
    public var setup: SetupRole? { attribute("setup").flatMap { SetupRole(rawValue: $0) } }
    public var mid: String? { attribute("mid") }
    public var iceUfrag: String? { attribute("ice-ufrag") }
    public var icePwd: String? { attribute("ice-pwd") }
    public var iceOptions: [String] { attribute("ice-options").map { $0.split(separator: " ").map(String.init) } ?? [] }
    public var candidates: [ICECandidate] { attributes("candidate").compactMap { try? ICECandidate(parsing: $0) } }

    /// Checks every known attribute's syntax (called by the parser).
    func validate() throws(MediaError) {
        for a in attributes {
            let v = a.value ?? ""
            switch a.name {
            case "rtpmap": _ = try RTPMap(parsing: v)
            case "ptime", "maxptime":
                guard Int(v).map({ $0 > 0 }) == true else { throw MediaError(.badSDPField, "\(a.name) '\(v)'") }
            case "rtcp": _ = try RTCPAttribute(parsing: v)
            case "crypto": _ = try CryptoAttribute(parsing: v)
            case "fingerprint": _ = try CertificateFingerprint(parsing: v)
            case "setup":
                guard SetupRole(rawValue: v) != nil else { throw MediaError(.badSDPField, "setup '\(v)'") }
            case "candidate": _ = try ICECandidate(parsing: v)
            case "fmtp":
                guard v.split(separator: " ").first.flatMap({ UInt8($0) }) != nil else {
                    throw MediaError(.badSDPField, "fmtp '\(v)'")
                }
            default: break
            }
        }
    }
}
