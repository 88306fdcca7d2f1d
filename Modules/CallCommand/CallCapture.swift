import Capture
import Media
import SIPTransport

extension CaptureHub {
    /// The media tap that puts a call's RTP and RTCP into the `--pcap` file (nil without one).
    var mediaTap: MediaTap? {
        guard wantsMedia else { return nil }
        return MediaTap { [self] packet in
            guard let local = SocketAddress(ip: packet.local.host, port: packet.local.port),
                let remote = SocketAddress(ip: packet.remote.host, port: packet.remote.port)
            else { return }
            let now = SIPTraceFormatter.now()
            record(
                media: CapturedPacket(
                    time: .init(seconds: now.seconds, nanoseconds: now.nanoseconds),
                    direction: packet.direction == .sent ? .sent : .received,
                    content: packet.kind == .rtp ? .rtp : .rtcp, transport: .udp, local: local, remote: remote,
                    bytes: packet.bytes))
        }
    }
}
