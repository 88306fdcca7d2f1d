import Dispatch
import SIPCore

/// One audio stream over real UDP: G.711 + RTP/RTCP, optional SDES-SRTP, RFC 4733 DTMF, a
/// jitter buffer and a paced 20 ms media clock (`FramePacer` on the injected `Clock`).
///
/// The actor owns the sockets (non-blocking; a `DispatchSource` per socket feeds datagrams
/// into an `AsyncStream` that the actor drains) and the SRTP contexts; everything else is the
/// pure cores of this module. Events arrive on ``events``.
public actor MediaSession<C: Clock> where C.Duration == Duration {
    public private(set) var configuration: MediaSessionConfiguration
    /// Where RTP (and RTCP once rtcp-mux is in use) is received.
    public nonisolated let localAddress: UDPSocket.Address
    /// Where RTCP is received: RTP port + 1 until rtcp-mux is agreed (RFC 5761 §5.1.3), then
    /// ``localAddress``.
    public var localRTCPAddress: UDPSocket.Address { rtcpSocket?.localAddress ?? localAddress }
    public nonisolated let events: AsyncStream<MediaEvent>
    /// WebRTC mode: our ICE credentials, host candidates and certificate fingerprint as of
    /// creation, for an SDP offer or answer built before the session starts (no STUN
    /// gathering yet: ``webRTCLocalParameters()`` waits for that). Nil
    /// outside WebRTC mode.
    public nonisolated let initialWebRTCParameters: WebRTCLocalParameters?

    private let clock: C
    private let startInstant: C.Instant
    let rtpSocket: UDPSocket
    /// RTP port + 1 (RFC 3550 §11), bound at creation unless mux is required from the start,
    /// released once an answer agrees to rtcp-mux (RFC 5761 §5.1.3).
    private var rtcpSocket: UDPSocket?
    nonisolated(unsafe) private var rtcpReadSource: (any DispatchSourceRead)?
    var outbound: SRTPContext?
    var inbound: SRTPContext?
    let eventContinuation: AsyncStream<MediaEvent>.Continuation
    private let datagrams: AsyncStream<Datagram>
    private let datagramContinuation: AsyncStream<Datagram>.Continuation
    // Touched only in start, stop and deinit.
    nonisolated(unsafe) private var readSources: [any DispatchSourceRead] = []
    var tasks: [Task<Void, Never>] = []
    private let ids: any IdentifierSource
    /// `--pcap`: a plaintext copy of every RTP/RTCP packet.
    private let tap: MediaTap?

    private var sender: RTPSender
    var remote: UDPSocket.Address?
    var remoteRTCP: UDPSocket.Address?
    private var source: any AudioSource = SilenceSource()
    private var sink: any AudioSink = NullSink()
    private var sourceEnded = false
    private var direction: MediaDirection
    private var dtmfSender: DTMFSender
    private var inBandQueue: [DTMFDigit] = []
    private var inBandTone: (generator: ToneGenerator, framesLeft: Int, pauseLeft: Int)?
    private var dtmfReceiver = DTMFReceiver()
    private var detector = DTMFDetector()
    private var jitterBuffer: JitterBuffer
    private var reception: RTPReceptionStatistics?
    private var stats = MediaStatistics()
    private var ntpBase: UInt64
    private var lastSRCompact: UInt32 = 0
    private var lastSRArrival: Duration?
    private var lastReportedPacketCount: UInt32 = 0
    private var sendBuffer: [UInt8]
    private var frame: [Int16]
    var running = false
    /// ICE + DTLS-SRTP on the RTP socket (``MediaSessionConfiguration/webRTC``).
    var webrtc: WebRTCTransport?
    /// Callers of ``webRTCLocalParameters()`` waiting for candidate gathering to end.
    var gatheringWaiters: [CheckedContinuation<Void, Never>] = []
    private var connectedPeer: UDPSocket.Address?

    private struct Datagram: Sendable {
        var bytes: [UInt8]
        var onRTCPSocket: Bool
        var source: UDPSocket.Address?
    }

    /// Binds the socket(s). `ids` supplies the SSRC, initial sequence number and timestamp.
    public init(
        configuration: MediaSessionConfiguration, clock: C, ids: some IdentifierSource = SystemIdentifierSource(),
        tap: MediaTap? = nil
    )
        throws(MediaError)
    {
        self.tap = tap
        // RFC 5761 §5.1.3: until an answer confirms rtcp-mux the offerer must take RTCP on its
        // RTCP port, so the pair is bound now (WebRTC requires mux from the start: one socket).
        var configuration = configuration
        if configuration.webRTC != nil { configuration.rtcpMux = true }  // RFC 8829 §5.1.1: mux-only
        let rtp: UDPSocket
        let rtcp: UDPSocket?
        if configuration.rtcpMux {
            rtp = try UDPSocket(bindHost: configuration.localHost, port: configuration.localPort)
            rtcp = nil
        } else {
            (rtp, rtcp) = try UDPSocket.bindPair(host: configuration.localHost, port: configuration.localPort)
        }
        var contexts: (SRTPContext, SRTPContext)?
        if let keys = configuration.srtp {
            contexts = (
                try SRTPContext(key: keys.local, direction: .outbound),
                try SRTPContext(key: keys.remote, direction: .inbound)
            )
        }
        self.configuration = configuration
        self.clock = clock
        self.startInstant = clock.now
        self.ids = ids
        rtpSocket = rtp
        rtcpSocket = rtcp
        localAddress = rtp.localAddress
        outbound = contexts?.0
        inbound = contexts?.1
        (events, eventContinuation) = AsyncStream.makeStream(
            of: MediaEvent.self, bufferingPolicy: .bufferingNewest(1024))
        (datagrams, datagramContinuation) = AsyncStream.makeStream(
            of: Datagram.self, bufferingPolicy: .bufferingNewest(4096))
        sender = RTPSender(
            ssrc: ids.nextUInt32(), initialSequenceNumber: UInt16(truncatingIfNeeded: ids.nextUInt64()),
            initialTimestamp: ids.nextUInt32())
        direction = configuration.direction
        dtmfSender = DTMFSender(
            samplesPerPacket: UInt32(configuration.samplesPerFrame),
            toneDuration: configuration.dtmfToneDuration, pause: configuration.dtmfPause)
        jitterBuffer = JitterBuffer(configuration: configuration.jitterBuffer)
        ntpBase = NTPTime.now()
        sendBuffer = [UInt8](repeating: 0, count: 12 + 4 * 1920 + SRTPContext.maxRTCPTrailer)
        frame = [Int16](repeating: 0, count: configuration.samplesPerFrame)
        if let w = configuration.webRTC {
            do { webrtc = try WebRTCTransport(configuration: w, local: rtp.localAddress, ids: ids) } catch {
                throw MediaError(.srtpSetupFailed, error.description)
            }
        }
        initialWebRTCParameters = webrtc?.localParameters
        if webrtc != nil { SRTPContext.warmUp() }  // keys arrive mid-set-up: pay the first-use cost now
    }

    deinit {
        for source in readSources { source.cancel() }
        rtcpReadSource?.cancel()
        for task in tasks { task.cancel() }
        datagramContinuation.finish()
        eventContinuation.finish()
    }

    /// Applies an offer/answer result (RFC 3264): codec and payload types, telephone-event,
    /// direction, SDES keys and the remote address. Call it before ``start(remote:remoteRTCP:source:sink:)``
    /// (then pass `remote: nil` or the same address) or mid-call for a re-INVITE (hold/resume,
    /// new keys: fresh SRTP contexts, so replay state restarts with the new key). A different
    /// ptime is accepted only before start.
    public func apply(_ negotiated: NegotiatedAudio) throws(MediaError) {
        var updated = configuration
        updated.law = negotiated.codec.law
        updated.payloadType = negotiated.payloadType
        updated.telephoneEventPayloadType = negotiated.telephoneEventPayloadType
        updated.ptime = .milliseconds(negotiated.ptime)
        updated.direction = negotiated.direction
        if let local = negotiated.localKey, let remoteKey = negotiated.remoteKey {
            updated.srtp = SRTPKeys(local: local, remote: remoteKey)
        } else {
            updated.srtp = nil
        }
        if webrtc != nil { updated.srtp = configuration.srtp }  // keys come from DTLS
        if updated.ptime != configuration.ptime {
            guard !running else { throw MediaError(.invalidState, "ptime cannot change during a call") }
            frame = [Int16](repeating: 0, count: updated.samplesPerFrame)
            dtmfSender = DTMFSender(
                samplesPerPacket: UInt32(updated.samplesPerFrame), toneDuration: updated.dtmfToneDuration,
                pause: updated.dtmfPause)
            var jb = updated.jitterBuffer
            jb.samplesPerFrame = updated.samplesPerFrame
            jb.frameDuration = updated.ptime
            updated.jitterBuffer = jb
            jitterBuffer = JitterBuffer(configuration: jb)
        }
        if updated.srtp != configuration.srtp {
            if let keys = updated.srtp {
                outbound = try SRTPContext(key: keys.local, direction: .outbound)
                inbound = try SRTPContext(key: keys.remote, direction: .inbound)
            } else {
                outbound = nil
                inbound = nil
            }
        }
        configuration = updated
        // Resume after we did not receive (we held, RFC 3264 §8.4): the peer's timestamps moved
        // on with its clock meanwhile (RFC 3550 §5.1), so its audio starts a new timeline now
        // rather than being dropped as overflow until the out-of-range resync.
        if !direction.receives && updated.direction.receives { jitterBuffer.resync() }
        direction = updated.direction
        if webrtc != nil {  // ICE decides where media goes
            try applyWebRTC(negotiated)
            return
        }
        if negotiated.rtcpMux { releaseRTCPPort() }
        // RFC 3264 §8.4: a null address means "do not send" (legacy hold).
        if negotiated.remoteAddress != "0.0.0.0" && negotiated.remoteAddress != "::" {
            remote = UDPSocket.Address(host: negotiated.remoteAddress, port: negotiated.remotePort)
            // RFC 3605: a=rtcp may name another address too.
            remoteRTCP = UDPSocket.Address(
                host: negotiated.remoteRTCPAddress ?? negotiated.remoteAddress, port: negotiated.remoteRTCPPort)
            if running { connectIfConfigured() }
        }
    }

    /// rtcp-mux was agreed (RFC 5761 §5.1.3): RTCP moves to the RTP socket, RTP port + 1 is
    /// given back.
    private func releaseRTCPPort() {
        guard rtcpSocket != nil else { return }
        rtcpReadSource?.cancel()
        rtcpReadSource = nil
        rtcpSocket = nil
    }

    /// ``MediaSessionConfiguration/connectSocket``: (re)connects the RTP socket to the remote.
    private func connectIfConfigured() {
        guard configuration.connectSocket, !configuration.latchRemote, let remote, remote != connectedPeer else { return }
        do {
            try rtpSocket.connect(to: remote)
            connectedPeer = remote
        } catch {
            connectedPeer = nil
        }
    }

    /// Our RTP SSRC.
    public var ssrc: UInt32 { sender.ssrc }

    /// Starts sending `source` to `remote` (RTCP to `remoteRTCP`, default: same port with
    /// rtcp-mux, else port + 1) and playing received audio into `sink`. With `remote` nil
    /// (media before the answer) nothing is sent until ``MediaSessionConfiguration/latchRemote``
    /// learns the peer from its first valid packet.
    public func start(
        remote: UDPSocket.Address?, remoteRTCP: UDPSocket.Address? = nil,
        source: some AudioSource = SilenceSource(), sink: some AudioSink = NullSink()
    ) {
        precondition(!running, "MediaSession.start called twice")
        running = true
        if let remote {
            self.remote = remote
            self.remoteRTCP =
                remoteRTCP ?? (rtcpSocket == nil ? remote : UDPSocket.Address(host: remote.host, port: remote.port &+ 1))
        }
        self.source = source
        self.sink = sink
        connectIfConfigured()
        let continuation = datagramContinuation
        for (socket, isRTCP) in [(rtpSocket, false)] + (rtcpSocket.map { [($0, true)] } ?? []) {
            let readSource = DispatchSource.makeReadSource(
                fileDescriptor: socket.fd, queue: DispatchQueue(label: "astra.media.rx"))
            readSource.setEventHandler {
                var buffer = [UInt8](repeating: 0, count: 2048)
                while true {
                    guard let (n, from) = buffer.withUnsafeMutableBytes({ socket.receive(into: $0) }) else { break }
                    continuation.yield(Datagram(bytes: Array(buffer[0..<n]), onRTCPSocket: isRTCP, source: from))
                }
            }
            readSource.setCancelHandler { _ = socket }
            readSource.resume()
            if isRTCP { rtcpReadSource = readSource } else { readSources.append(readSource) }
        }
        let stream = datagrams
        tasks.append(
            Task { [weak self] in
                for await datagram in stream {
                    guard let self else { return }
                    await self.handle(datagram)
                }
            })
        tasks.append(Task { [weak self] in await self?.runMediaClock() })
        startWebRTC()
        tasks.append(Task { [weak self] in await self?.runRTCPTimer() })
    }

    /// Queues DTMF digits: RFC 4733 events, or in-band tones without telephone-event.
    public func sendDTMF(_ digits: [DTMFDigit]) {
        if configuration.telephoneEventPayloadType != nil {
            dtmfSender.enqueue(digits)
        } else {
            inBandQueue += digits
        }
    }

    /// Changes direction (hold: `.sendonly`/`.inactive`; resume: `.sendrecv`).
    public func setDirection(_ newDirection: MediaDirection) { direction = newDirection }

    /// A statistics snapshot.
    public var statistics: MediaStatistics {
        var s = stats
        if let reception {
            s.cumulativeLost = reception.cumulativeLost
            s.extendedHighestSequence = reception.extendedHighestSequence
            s.jitterMilliseconds = reception.jitter / 8
        }
        s.jitterBuffer = jitterBuffer.statistics
        return s
    }

    /// Sends RTCP BYE (RFC 3550 §6.6), stops the clock and the sockets, ends ``events``.
    public func stop(reason: String? = nil) {
        guard running else {
            eventContinuation.finish()
            return
        }
        running = false
        sendRTCP(bye: reason ?? "")
        stopWebRTC()
        resumeGatheringWaiters()
        for t in tasks { t.cancel() }
        tasks.removeAll()
        for s in readSources { s.cancel() }
        readSources.removeAll()
        rtcpReadSource?.cancel()
        rtcpReadSource = nil
        datagramContinuation.finish()
        eventContinuation.finish()
    }

    var elapsed: Duration { startInstant.duration(to: clock.now) }

    // MARK: Media clock (send + playout every frame)

    private func runMediaClock() async {
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

    private func sendFrame(index: Int64, deadline: Duration) {
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

    private func mixInBandDTMF() {
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
    private func transmit(
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

    private func playFrame(at now: Duration) {
        guard direction.receives else { return }
        let playout = jitterBuffer.pop(now: now)
        guard let samples = playout.samples else { return }
        sink.write(samples)
        if configuration.detectInBandDTMF {
            for digit in detector.process(samples) { eventContinuation.yield(.inBandDTMF(digit)) }
        }
    }

    // MARK: Receive

    private func handle(_ datagram: Datagram) {
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

    private func receiveRTP(_ bytes: inout [UInt8], from source: UDPSocket.Address?) {
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

    private func countSRTPFailure(_ error: MediaError) {
        switch error.code {
        case .srtpAuthenticationFailed: stats.srtpAuthenticationFailures += 1
        case .srtpReplay: stats.srtpReplays += 1
        default: stats.malformedPackets += 1
        }
    }

    /// `onRTCPSocket`: it arrived on the RTCP port (RTP + 1, mux not in use).
    private func receiveRTCP(_ bytes: inout [UInt8], from source: UDPSocket.Address?, onRTCPSocket: Bool) {
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

    private func absorb(_ reports: [RTCPReportBlock], arrivalCompact: UInt32) {
        for block in reports where block.ssrc == sender.ssrc {
            stats.remoteFractionLost = Double(block.fractionLost) / 256
            stats.remoteCumulativeLost = block.cumulativeLost
            if let rtt = block.roundTripTime(arrivalCompactNTP: arrivalCompact) { stats.roundTripTime = rtt }
        }
    }

    // MARK: RTCP (RFC 3550 §6)

    private func runRTCPTimer() async {
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
