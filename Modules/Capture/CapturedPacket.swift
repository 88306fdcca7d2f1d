import SIPTransport

/// One packet a tool sent or received, as the application saw it: a SIP message after TLS and
/// WebSocket decoding (already redacted), or an RTP/RTCP packet after SRTP. The unit every
/// export works on: the JSON trace file, pcap, HEP and the ladder.
public struct CapturedPacket: Sendable, Hashable {
    public enum Direction: String, Sendable, Hashable {
        case sent
        case received
    }

    public enum Content: String, Sendable, Hashable {
        case sip
        case rtp
        case rtcp
    }

    /// Wall-clock time (CLOCK_REALTIME) when the packet crossed the socket: the transports' one
    /// stamp, the very value the SIP trace prints.
    public typealias Time = WireTime

    public var time: Time
    public var direction: Direction
    public var content: Content
    /// The SIP transport (RTP and RTCP: `.udp`).
    public var transport: TransportKind
    /// Our socket's address.
    public var local: SocketAddress
    /// The peer's socket address.
    public var remote: SocketAddress
    public var bytes: [UInt8]

    public init(
        time: Time, direction: Direction, content: Content, transport: TransportKind, local: SocketAddress,
        remote: SocketAddress, bytes: [UInt8]
    ) {
        self.time = time
        self.direction = direction
        self.content = content
        self.transport = transport
        self.local = local
        self.remote = remote
        self.bytes = bytes
    }

    public var source: SocketAddress { direction == .sent ? local : remote }
    public var destination: SocketAddress { direction == .sent ? remote : local }

    /// True when the packet rides TCP on the wire (TCP, TLS, WS, WSS).
    public var overTCP: Bool { content == .sip && transport != .udp }

    /// Stands for an address a transport did not know (never a real peer).
    public static let unknownAddress = SocketAddress(ip: "0.0.0.0", port: 0)!
}

extension CapturedPacket {
    /// A SIP message from the transports' trace hook, redacted by the one redactor; its
    /// Content-Length is corrected to the redacted body (``ContentLengthFix``).
    public init(_ message: SIPTrace.Message, redacted: [UInt8]) {
        let bytes = ContentLengthFix.apply(redacted)
        self.init(
            time: Time(seconds: message.timestamp.seconds, nanoseconds: message.timestamp.nanoseconds),
            direction: message.direction == .sent ? .sent : .received, content: .sip, transport: message.transport,
            local: message.local ?? Self.unknownAddress, remote: message.remote ?? Self.unknownAddress, bytes: bytes)
    }
}

extension CapturedPacket {
    /// The packet as pcap and HEP carry it: redacted SDES keys as valid base64 so dissectors
    /// keep going (``DissectableRedaction``).
    public var forDissectors: CapturedPacket {
        guard content == .sip else { return self }
        var copy = self
        copy.bytes = DissectableRedaction.apply(bytes)
        return copy
    }
}
