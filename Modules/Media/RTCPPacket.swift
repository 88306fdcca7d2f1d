/// RTCP packets (RFC 3550 §6.4–§6.6): SR, RR, SDES (CNAME), BYE; others kept as raw bytes.
public enum RTCPPacket: Sendable, Hashable {
    case senderReport(RTCPSenderReport)
    case receiverReport(ssrc: UInt32, reports: [RTCPReportBlock])
    /// SDES with the CNAME item of each chunk (RFC 3550 §6.5.1); other items are skipped.
    case sourceDescription([RTCPSourceChunk])
    case bye(ssrcs: [UInt32], reason: String?)
    case other(packetType: UInt8, body: [UInt8])

    /// RTCP packet types (RFC 3550 §12.1).
    public enum PacketType {
        public static let senderReport: UInt8 = 200
        public static let receiverReport: UInt8 = 201
        public static let sourceDescription: UInt8 = 202
        public static let bye: UInt8 = 203
    }

    /// Serializes a compound packet (RFC 3550 §6.1): the packets back to back.
    public static func serialize(_ packets: [RTCPPacket]) -> [UInt8] {
        var out: [UInt8] = []
        for p in packets { p.append(to: &out) }
        return out
    }

    /// Parses a compound RTCP packet. Throws on a bad version or a length that overruns.
    public static func parseCompound(_ bytes: [UInt8]) throws(MediaError) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else {
                throw MediaError(.malformedPacket, "RTCP header truncated at \(offset)")
            }
            let b0 = bytes[offset]
            guard b0 >> 6 == 2 else { throw MediaError(.malformedPacket, "RTCP version \(b0 >> 6) at \(offset)") }
            let count = Int(b0 & 0x1F)
            let type = bytes[offset + 1]
            let length = (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]) + 1) * 4
            guard offset + length <= bytes.count else {
                throw MediaError(.malformedPacket, "RTCP length overruns at \(offset)")
            }
            var end = offset + length
            if b0 & 0x20 != 0 {
                let pad = Int(bytes[end - 1])
                guard pad <= length - 4 else { throw MediaError(.malformedPacket, "RTCP padding") }
                end -= pad
            }
            let body = Array(bytes[(offset + 4)..<end])
            packets.append(try parse(type: type, count: count, body: body))
            offset += length
        }
        return packets
    }

    private static func parse(type: UInt8, count: Int, body: [UInt8]) throws(MediaError) -> RTCPPacket {
        var r = ByteReader(body)
        switch type {
        case PacketType.senderReport:
            guard body.count >= 24 + 24 * count else { throw MediaError(.malformedPacket, "SR too short") }
            let ssrc = r.u32()
            let ntp = UInt64(r.u32()) << 32 | UInt64(r.u32())
            let sr = RTCPSenderReport(
                ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: r.u32(), packetCount: r.u32(),
                octetCount: r.u32(), reports: (0..<count).map { _ in RTCPReportBlock(reading: &r) })
            return .senderReport(sr)
        case PacketType.receiverReport:
            guard body.count >= 4 + 24 * count else { throw MediaError(.malformedPacket, "RR too short") }
            let ssrc = r.u32()
            return .receiverReport(ssrc: ssrc, reports: (0..<count).map { _ in RTCPReportBlock(reading: &r) })
        case PacketType.sourceDescription:
            var chunks: [RTCPSourceChunk] = []
            for _ in 0..<count {
                guard r.remaining >= 4 else { throw MediaError(.malformedPacket, "SDES chunk truncated") }
                let ssrc = r.u32()
                var cname = ""
                while r.remaining > 0 {
                    let itemType = r.u8()
                    if itemType == 0 { break }
                    guard r.remaining >= 1 else { throw MediaError(.malformedPacket, "SDES item truncated") }
                    let len = Int(r.u8())
                    guard r.remaining >= len else { throw MediaError(.malformedPacket, "SDES item overruns") }
                    let text = r.bytes(len)
                    if itemType == 1 { cname = RTCPText.decode(text) }
                }
                r.alignTo4()
                chunks.append(RTCPSourceChunk(ssrc: ssrc, cname: cname))
            }
            return .sourceDescription(chunks)
        case PacketType.bye:
            guard body.count >= 4 * count else { throw MediaError(.malformedPacket, "BYE too short") }
            let ssrcs = (0..<count).map { _ in r.u32() }
            var reason: String?
            if r.remaining > 0 {
                let len = Int(r.u8())
                guard r.remaining >= len else { throw MediaError(.malformedPacket, "BYE reason overruns") }
                reason = RTCPText.decode(r.bytes(len))
            }
            return .bye(ssrcs: ssrcs, reason: reason)
        default:
            return .other(packetType: type, body: body)
        }
    }

    private func append(to out: inout [UInt8]) {
        let start = out.count
        var count = 0
        var padded = false
        let type: UInt8
        switch self {
        case .senderReport(let sr):
            type = PacketType.senderReport
            count = sr.reports.count
            out += [0, 0, 0, 0]
            out.appendBE(sr.ssrc)
            out.appendBE(UInt32(truncatingIfNeeded: sr.ntpTimestamp >> 32))
            out.appendBE(UInt32(truncatingIfNeeded: sr.ntpTimestamp))
            out.appendBE(sr.rtpTimestamp)
            out.appendBE(sr.packetCount)
            out.appendBE(sr.octetCount)
            for block in sr.reports { block.append(to: &out) }
        case .receiverReport(let ssrc, let reports):
            type = PacketType.receiverReport
            count = reports.count
            out += [0, 0, 0, 0]
            out.appendBE(ssrc)
            for block in reports { block.append(to: &out) }
        case .sourceDescription(let chunks):
            type = PacketType.sourceDescription
            count = chunks.count
            out += [0, 0, 0, 0]
            for chunk in chunks {
                out.appendBE(chunk.ssrc)
                let name = RTCPText.encode(chunk.cname)
                out.append(1)
                out.append(UInt8(name.count))
                out += name
                out.append(0)
                while (out.count - start) % 4 != 0 { out.append(0) }
            }
        case .bye(let ssrcs, let reason):
            type = PacketType.bye
            count = ssrcs.count
            out += [0, 0, 0, 0]
            for s in ssrcs { out.appendBE(s) }
            if let reason {
                let text = RTCPText.encode(reason)
                out.append(UInt8(text.count))
                out += text
                while (out.count - start) % 4 != 0 { out.append(0) }
            }
        case .other(let packetType, let body):
            type = packetType
            out += [0, 0, 0, 0]
            out += body
            // RFC 3550 §6.4.1: a body that is not a multiple of 4 octets is padded with the P bit
            // set and the last octet counting the padding, so it reads back exactly (zeros
            // alone would become part of the body).
            let pad = (4 - body.count % 4) % 4
            if pad > 0 {
                padded = true
                out += [UInt8](repeating: 0, count: pad - 1) + [UInt8(pad)]
            }
        }
        let words = (out.count - start) / 4 - 1
        out[start] = 0x80 | (padded ? 0x20 : 0) | UInt8(count & 0x1F)
        out[start + 1] = type
        out[start + 2] = UInt8(words >> 8)
        out[start + 3] = UInt8(words & 0xFF)
    }
}

/// One SDES chunk: an SSRC and its CNAME (RFC 3550 §6.5.1).
public struct RTCPSourceChunk: Sendable, Hashable {
    public var ssrc: UInt32
    public var cname: String
    public init(ssrc: UInt32, cname: String) {
        self.ssrc = ssrc
        self.cname = cname
    }
}

/// RFC 3550 §6.4.1 sender report.
public struct RTCPSenderReport: Sendable, Hashable {
    public var ssrc: UInt32
    /// 64-bit NTP timestamp (RFC 3550 §4).
    public var ntpTimestamp: UInt64
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reports: [RTCPReportBlock]

    public init(
        ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reports: [RTCPReportBlock] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
    }

    /// The middle 32 bits of the NTP timestamp: what a receiver echoes as LSR (§6.4.1).
    public var compactNTP: UInt32 { UInt32(truncatingIfNeeded: ntpTimestamp >> 16) }
}

/// RFC 3550 §6.4.1 report block.
public struct RTCPReportBlock: Sendable, Hashable {
    public var ssrc: UInt32
    /// Fraction lost since the previous report, in 1/256.
    public var fractionLost: UInt8
    /// Cumulative packets lost (24-bit signed; may be negative with duplicates).
    public var cumulativeLost: Int32
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in timestamp units (§6.4.1, A.8).
    public var jitter: UInt32
    /// Middle 32 bits of the last SR's NTP timestamp (0 if none).
    public var lastSR: UInt32
    /// Delay since that SR in 1/65536 s.
    public var delaySinceLastSR: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequence: UInt32,
        jitter: UInt32, lastSR: UInt32, delaySinceLastSR: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSR = lastSR
        self.delaySinceLastSR = delaySinceLastSR
    }

    /// Round-trip time per RFC 3550 §6.4.1: `A - LSR - DLSR`, with `A` the compact NTP arrival
    /// time of this report. Nil when no SR was echoed.
    public func roundTripTime(arrivalCompactNTP a: UInt32) -> Duration? {
        guard lastSR != 0 else { return nil }
        let rtt = Int64(Int32(bitPattern: a &- lastSR &- delaySinceLastSR))
        guard rtt >= 0 else { return nil }
        return .nanoseconds(rtt * 1_000_000_000 / 65536)
    }

    init(reading r: inout ByteReader) {
        ssrc = r.u32()
        let word = r.u32()
        fractionLost = UInt8(word >> 24)
        let raw = Int32(bitPattern: word << 8) >> 8  // sign-extend 24 bits
        cumulativeLost = raw
        extendedHighestSequence = r.u32()
        jitter = r.u32()
        lastSR = r.u32()
        delaySinceLastSR = r.u32()
    }

    func append(to out: inout [UInt8]) {
        out.appendBE(ssrc)
        let clamped = max(-0x80_0000, min(0x7F_FFFF, cumulativeLost))
        out.appendBE(UInt32(fractionLost) << 24 | (UInt32(bitPattern: clamped) & 0xFF_FFFF))
        out.appendBE(extendedHighestSequence)
        out.appendBE(jitter)
        out.appendBE(lastSR)
        out.appendBE(delaySinceLastSR)
    }
}

/// The text of an SDES item or a BYE reason: UTF-8 after a one-octet length, so at most 255
/// octets (RFC 3550 §6.5, §6.6).
enum RTCPText {
    /// The received octets as text, invalid UTF-8 replaced by U+FFFD and then cut, at a
    /// character boundary, to what ``encode(_:)`` can write again — so a parsed packet
    /// serializes to itself (each replaced octet takes three).
    static func decode(_ octets: some Collection<UInt8>) -> String {
        String(decoding: encode(String(decoding: octets, as: UTF8.self)), as: UTF8.self)
    }

    /// At most 255 octets of UTF-8, cut before a character that would not fit whole (a cut in
    /// the middle of one would send invalid UTF-8).
    static func encode(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            let octets = Array(String(scalar).utf8)
            guard out.count + octets.count <= 255 else { break }
            out += octets
        }
        return out
    }
}

/// Big-endian reader over a byte array; callers check ``remaining`` first.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var remaining: Int { bytes.count - offset }
    mutating func u8() -> UInt8 {
        defer { offset += 1 }
        return bytes[offset]
    }
    mutating func u32() -> UInt32 {
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
    mutating func bytes(_ n: Int) -> ArraySlice<UInt8> {
        defer { offset += n }
        return bytes[offset..<(offset + n)]
    }
    mutating func alignTo4() { offset = min(bytes.count, (offset + 3) & ~3) }
}

extension Array where Element == UInt8 {
    mutating func appendBE(_ v: UInt32) {
        append(UInt8(v >> 24))
        append(UInt8((v >> 16) & 0xFF))
        append(UInt8((v >> 8) & 0xFF))
        append(UInt8(v & 0xFF))
    }
}
