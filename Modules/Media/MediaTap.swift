/// A copy of every RTP and RTCP packet a ``MediaSession`` sends or receives, in plaintext
/// (before SRTP protection, after unprotection), for `--pcap`. Nil (the default) costs nothing;
/// with a tap each packet is copied once and handed over on the session's executor, so the
/// receiver must be quick (append to a file) and thread-safe.
public struct MediaTap: Sendable {
    public enum Kind: Sendable { case rtp, rtcp }
    public enum Direction: Sendable { case sent, received }

    public struct Packet: Sendable {
        public let kind: Kind
        public let direction: Direction
        /// Our socket (as bound).
        public let local: UDPSocket.Address
        /// The peer's address: where we sent it, or where it came from.
        public let remote: UDPSocket.Address
        public let bytes: [UInt8]
    }

    private let sink: @Sendable (Packet) -> Void

    public init(_ sink: @escaping @Sendable (Packet) -> Void) { self.sink = sink }

    func record(
        _ kind: Kind, _ direction: Direction, local: UDPSocket.Address, remote: UDPSocket.Address?, bytes: [UInt8]
    ) {
        guard let remote else { return }
        sink(Packet(kind: kind, direction: direction, local: local, remote: remote, bytes: bytes))
    }
}
