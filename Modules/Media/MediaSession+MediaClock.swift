import Dispatch
import SIPCore

/// The media clock: every frame (ptime) one packet sent — audio, RFC 4733 DTMF or in-band
/// tones mixed in — and one frame played out of the jitter buffer.
extension MediaSession {
    func runMediaClock() async {
        var pacer = FramePacer(interval: configuration.ptime, start: elapsed)
        var nextStats = configuration.statisticsInterval.map { elapsed + $0 }
        while running && !Task.isCancelled {
            do {
                try await clock.sleep(until: startInstant.advanced(by: pacer.nextDeadline), tolerance: nil)
            } catch { return }
            let now = elapsed
            let due = pacer.frameDue(now: now)
            stats.framesSkipped = pacer.skippedFrames
            for k in 0..<due {
                let index = pacer.frameIndex - Int64(due - k)
                sendFrame(index: index, deadline: pacer.deadline(of: index))
                playFrame(at: now)
            }
            if let n = nextStats, now >= n {
                eventContinuation.yield(.statistics(statistics))
                nextStats = n + (configuration.statisticsInterval ?? .seconds(1))
            }
        }
    }

    func sendFrame(index: Int64, deadline: Duration) {
        let samples = UInt32(configuration.samplesPerFrame)
        defer { sender.advanceTimestamp(by: samples) }
        // WebRTC: no destination until ICE + DTLS are done; keep the source for then (a call
        // starts its session before the answer so that early checks are answered).
        if webrtc != nil && remote == nil { return }
        if !sourceEnded {
            if !source.read(into: &frame) {
                sourceEnded = true
                eventContinuation.yield(.sourceEnded)
            }
        }
        if sourceEnded { for i in frame.indices { frame[i] = 0 } }
        guard direction.sends, let remote else { return }
        if let te = configuration.telephoneEventPayloadType {
            let suppress = dtmfSender.suppressesAudio
            if let packet = dtmfSender.tick(timestamp: sender.timestamp) {
                let payload = packet.payload.bytes
                let header = sender.nextHeader(
                    payloadType: te, marker: packet.marker, payloadSize: 4, timestamp: packet.timestamp)
                transmit(header: header, payload: 4, to: remote) { buf in
                    for i in 0..<4 { buf[i] = payload[i] }
                }
                stats.dtmfPacketsSent += 1
                return
            }
            if suppress { return }
        } else {
            mixInBandDTMF()
        }
        if sourceEnded { return }
        let header = sender.nextHeader(payloadType: configuration.payloadType, payloadSize: frame.count)
        let law = configuration.law
        let count = frame.count
        let pcm = frame
        transmit(header: header, payload: count, to: remote) { buf in
            pcm.withUnsafeBufferPointer { G711.encode(law, $0, into: buf) }
        }
        stats.pacing.record(index: index, sent: elapsed, deadline: deadline)
    }

    func mixInBandDTMF() {
        if inBandTone == nil, !inBandQueue.isEmpty {
            let digit = inBandQueue.removeFirst()
            let frames = max(1, Int(configuration.dtmfToneDuration / configuration.ptime))
            let pause = max(1, Int(configuration.dtmfPause / configuration.ptime))
            inBandTone = (ToneGenerator.dtmf(digit), frames, pause)
        }
        guard var tone = inBandTone else { return }
        if tone.framesLeft > 0 {
            _ = tone.generator.read(into: &frame)
            tone.framesLeft -= 1
        } else {
            for i in frame.indices { frame[i] = 0 }
            tone.pauseLeft -= 1
        }
        inBandTone = tone.pauseLeft > 0 ? tone : nil
    }

    /// Writes header + payload into the send buffer, protects, sends.
    func transmit(
        header: RTPHeader, payload count: Int, to remote: UDPSocket.Address,
        fill: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        let sent: Int? = sendBuffer.withUnsafeMutableBytes { raw -> Int? in
            let h = header.write(into: raw)
            fill(UnsafeMutableRawBufferPointer(rebasing: raw[h..<(h + count)]))
            var length = h + count
            tap?.record(.rtp, .sent, local: localAddress, remote: remote, bytes: Array(raw[0..<length]))
            if let outbound {
                guard let n = try? outbound.protect(raw.baseAddress!, length: length, capacity: raw.count) else {
                    return nil
                }
                length = n
            }
            let packet = UnsafeRawBufferPointer(rebasing: raw[0..<length])
            if let relayed = relayedMedia(packet, to: remote) { return relayed ? length : nil }
            if connectedPeer == remote { return rtpSocket.sendConnected(packet) ? length : nil }
            return rtpSocket.send(packet, to: remote) ? length : nil
        }
        if let sent {
            stats.packetsSent += 1
            stats.octetsSent += sent
        }
    }

    func playFrame(at now: Duration) {
        guard direction.receives else { return }
        let playout = jitterBuffer.pop(now: now)
        guard let samples = playout.samples else { return }
        sink.write(samples)
        if configuration.detectInBandDTMF {
            for digit in detector.process(samples) { eventContinuation.yield(.inBandDTMF(digit)) }
        }
    }
}
