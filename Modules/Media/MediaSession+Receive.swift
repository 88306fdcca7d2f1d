import Dispatch
import SIPCore

/// Receiving: each datagram demultiplexed (RTP, RTCP, STUN/DTLS for WebRTC), SRTP-unprotected,
/// its packets counted and buffered, RTCP reports absorbed (RFC 3550 §6.4, RFC 5761 rtcp-mux).
extension MediaSession {
    func handle(_ datagram: Datagram) {
        var bytes = datagram.bytes
        let kind = datagram.onRTCPSocket ? PacketKind.rtcp : PacketDemultiplexer.classify(bytes)
        switch kind {
        case .rtp where webrtc == nil || inbound != nil: receiveRTP(&bytes, from: datagram.source)
        case .rtcp where webrtc == nil || inbound != nil:
            receiveRTCP(&bytes, from: datagram.source, onRTCPSocket: datagram.onRTCPSocket)
        case .rtp, .rtcp: break  // WebRTC: not keyed yet (DTLS still running)
        case .stun where webrtc != nil, .dtls where webrtc != nil, .turnChannel where webrtc != nil:
            receiveWebRTC(bytes, kind: kind, from: datagram.source)
        default: stats.malformedPackets += 1
        }
    }

    /// RTP/RTCP that the TURN server relayed from the peer (WebRTC over a relayed pair).
    func handleRelayed(_ bytes: [UInt8], from peer: UDPSocket.Address) {
        handle(Datagram(bytes: bytes, onRTCPSocket: false, source: peer))
    }

    func receiveRTP(_ bytes: inout [UInt8], from source: UDPSocket.Address?) {
        if let inbound {
            let count = bytes.count
            let result: Result<Int, MediaError> = bytes.withUnsafeMutableBytes { raw in
                do throws(MediaError) { return .success(try inbound.unprotect(raw.baseAddress!, length: count)) } catch
                {
                    return .failure(error)
                }
            }
            switch result {
            case .success(let n): bytes.removeLast(count - n)
            case .failure(let e):
                countSRTPFailure(e)
                return
            }
        }
        tap?.record(.rtp, .received, local: localAddress, remote: source, bytes: bytes)
        let parsed: (RTPHeader, Range<Int>)
        do { parsed = try bytes.withUnsafeBytes { raw throws(MediaError) in try RTPHeader.parse(raw) } } catch {
            stats.malformedPackets += 1
            return
        }
        let (header, range) = parsed
        // While we hold (sendonly/inactive) the peer's packets still arrive: they count for the
        // RTP statistics (RFC 3550 A.3 — they were not lost) but are not played.
        let playing = direction.receives || header.payloadType == configuration.telephoneEventPayloadType
        stats.packetsReceived += 1
        stats.octetsReceived += range.count
        if !playing { stats.packetsIgnoredOnHold += 1 }
        if configuration.latchRemote, let source, source != remote,
            header.payloadType == configuration.payloadType || header.payloadType == configuration.telephoneEventPayloadType
        {
            // Symmetric RTP (RFC 4961): answer where the media comes from (after SRTP
            // authentication when SRTP is on).
            remote = source
            if rtcpSocket == nil { remoteRTCP = source }  // RTCP shares the RTP port (mux)
            eventContinuation.yield(.remoteLatched(source))
        }
        let now = elapsed
        if reception?.ssrc != header.ssrc {
            if reception != nil { jitterBuffer.resync() }  // a new source: a new timeline
            reception = RTPReceptionStatistics(ssrc: header.ssrc, firstSequenceNumber: header.sequenceNumber)
            eventContinuation.yield(.remoteSource(ssrc: header.ssrc))
        }
        let arrival = UInt32(truncatingIfNeeded: Int64(now / .microseconds(125)))
        reception?.update(sequenceNumber: header.sequenceNumber, timestamp: header.timestamp, arrival: arrival)
        guard playing else { return }
        if header.payloadType == configuration.payloadType {
            let samples = G711.decode(configuration.law, Array(bytes[range]))
            jitterBuffer.insert(
                sequenceNumber: header.sequenceNumber, timestamp: header.timestamp, samples: samples, arrival: now)
        } else if header.payloadType == configuration.telephoneEventPayloadType {
            stats.dtmfPacketsReceived += 1
            if let events = try? dtmfReceiver.receive(timestamp: header.timestamp, payload: bytes[range]) {
                for e in events { eventContinuation.yield(.dtmf(e)) }
            }
        } else {
            stats.unknownPayloadType += 1
        }
    }

    func countSRTPFailure(_ error: MediaError) {
        switch error.code {
        case .srtpAuthenticationFailed: stats.srtpAuthenticationFailures += 1
        case .srtpReplay: stats.srtpReplays += 1
        default: stats.malformedPackets += 1
        }
    }

    /// `onRTCPSocket`: it arrived on the RTCP port (RTP + 1, mux not in use).
    func receiveRTCP(_ bytes: inout [UInt8], from source: UDPSocket.Address?, onRTCPSocket: Bool) {
        let local = onRTCPSocket ? localRTCPAddress : localAddress
        let rtcpSource = onRTCPSocket ? source : nil
        if let inbound {
            do { bytes = try inbound.unprotectRTCP(bytes) } catch {
                countSRTPFailure(error)
                return
            }
        }
        tap?.record(.rtcp, .received, local: local, remote: source, bytes: bytes)
        guard let packets = try? RTCPPacket.parseCompound(bytes) else {
            stats.malformedPackets += 1
            return
        }
        stats.rtcpReceived += 1
        if let rtcpSource {
            stats.rtcpReceivedOnRTCPPort += 1
            // Symmetric RTCP (RFC 4961 §3): answer where a valid report came from.
            if configuration.latchRemote, rtcpSource != remoteRTCP { remoteRTCP = rtcpSource }
        }
        let now = elapsed
        let arrivalCompact = UInt32(truncatingIfNeeded: NTPTime.advance(ntpBase, by: now) >> 16)
        for packet in packets {
            switch packet {
            case .senderReport(let sr):
                lastSRCompact = sr.compactNTP
                lastSRArrival = now
                absorb(sr.reports, arrivalCompact: arrivalCompact)
            case .receiverReport(_, let reports):
                absorb(reports, arrivalCompact: arrivalCompact)
            case .bye(_, let reason):
                eventContinuation.yield(.remoteBye(reason: reason))
            default: break
            }
        }
        eventContinuation.yield(.rtcp(packets))
    }

    func absorb(_ reports: [RTCPReportBlock], arrivalCompact: UInt32) {
        for block in reports where block.ssrc == sender.ssrc {
            stats.remoteFractionLost = Double(block.fractionLost) / 256
            stats.remoteCumulativeLost = block.cumulativeLost
            if let rtt = block.roundTripTime(arrivalCompactNTP: arrivalCompact) { stats.roundTripTime = rtt }
        }
    }
}
