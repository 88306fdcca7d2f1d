/// Classifies datagrams arriving on one port (RFC 7983 §7 first-byte ranges; RFC 5761 §4
/// RTP/RTCP split by payload type when rtcp-mux is in use).
public enum PacketKind: Sendable, Hashable {
    case stun
    case zrtp
    case dtls
    case turnChannel
    case rtp
    case rtcp
    case unknown
}

package enum PacketDemultiplexer {
    /// RFC 7983: 0–3 STUN, 16–19 ZRTP, 20–63 DTLS, 64–79 TURN channel, 128–191 RTP/RTCP; then
    /// RFC 5761 §4: second-byte values 192–223 (RTCP types 192–223 with the M bit) are RTCP.
    public static func classify(_ bytes: UnsafeRawBufferPointer) -> PacketKind {
        guard let first = bytes.first else { return .unknown }
        switch first {
        case 0...3: return .stun
        case 16...19: return .zrtp
        case 20...63: return .dtls
        case 64...79: return .turnChannel
        case 128...191:
            guard bytes.count >= 2 else { return .unknown }
            return (192...223).contains(bytes[1]) ? .rtcp : .rtp
        default: return .unknown
        }
    }

    /// Array convenience.
    public static func classify(_ bytes: [UInt8]) -> PacketKind { bytes.withUnsafeBytes { classify($0) } }
}
