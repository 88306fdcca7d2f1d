import Dispatch
import SIPCore

/// RTCP sending (RFC 3550 §6): the report timer and sender/receiver reports, BYE at the end.
extension MediaSession {
    func runRTCPTimer() async {
        while running && !Task.isCancelled {
            // RFC 3550 §6.3.1: randomise the interval to 0.5…1.5 × the nominal value.
            let factor = 0.5 + Double(ids.nextUInt64() % 1000) / 1000
            do { try await clock.sleep(for: configuration.rtcpInterval * factor) } catch { return }
            guard running else { return }
            sendRTCP(bye: nil)
        }
    }

    /// Sends SR (if we sent since the last report) or RR, SDES CNAME, and BYE when stopping.
    public func sendRTCP(bye reason: String?) {
        guard let remoteRTCP else { return }
        let now = elapsed
        var blocks: [RTCPReportBlock] = []
        if var r = reception {
            let dlsr = lastSRArrival.map { NTPTime.compact(now - $0) } ?? 0
            blocks.append(r.makeReportBlock(lastSR: lastSRCompact, delaySinceLastSR: dlsr))
            reception = r
        }
        var packets: [RTCPPacket] = []
        if sender.packetCount != lastReportedPacketCount {
            lastReportedPacketCount = sender.packetCount
            packets.append(
                .senderReport(
                    RTCPSenderReport(
                        ssrc: sender.ssrc, ntpTimestamp: NTPTime.advance(ntpBase, by: now),
                        rtpTimestamp: sender.lastTimestamp,
                        packetCount: sender.packetCount, octetCount: sender.octetCount, reports: blocks)))
        } else {
            packets.append(.receiverReport(ssrc: sender.ssrc, reports: blocks))
        }
        packets.append(.sourceDescription([RTCPSourceChunk(ssrc: sender.ssrc, cname: configuration.cname)]))
        if let reason { packets.append(.bye(ssrcs: [sender.ssrc], reason: reason.isEmpty ? nil : reason)) }
        var bytes = RTCPPacket.serialize(packets)
        tap?.record(.rtcp, .sent, local: localRTCPAddress, remote: remoteRTCP, bytes: bytes)
        if let outbound {
            guard let protected = try? outbound.protectRTCP(bytes) else { return }
            bytes = protected
        }
        if let relayed = bytes.withUnsafeBytes({ relayedMedia($0, to: remoteRTCP) }) {
            if relayed { stats.rtcpSent += 1 }
        } else if (rtcpSocket ?? rtpSocket).send(bytes, to: remoteRTCP) {
            stats.rtcpSent += 1
        }
    }
}
