import Dispatch
import SIPCore

/// One audio stream over real UDP: G.711 + RTP/RTCP, optional SDES-SRTP, RFC 4733 DTMF, a
/// jitter buffer and a paced 20 ms media clock (`FramePacer` on the injected `Clock`).
///
/// The actor owns the sockets (non-blocking; a `DispatchSource` per socket feeds datagrams
/// into an `AsyncStream` that the actor drains) and the SRTP contexts; everything else is the
/// pure cores of this module. Events arrive on ``events``.
public actor MediaSession<C: Clock> where C.Duration == Duration {
    public internal(set) var configuration: MediaSessionConfiguration
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

    let clock: C
    let startInstant: C.Instant
    let rtpSocket: UDPSocket
    /// RTP port + 1 (RFC 3550 §11), bound at creation unless mux is required from the start,
    /// released once an answer agrees to rtcp-mux (RFC 5761 §5.1.3).
    var rtcpSocket: UDPSocket?
    nonisolated(unsafe) var rtcpReadSource: (any DispatchSourceRead)?
    var outbound: SRTPContext?
    var inbound: SRTPContext?
    let eventContinuation: AsyncStream<MediaEvent>.Continuation
    let datagrams: AsyncStream<Datagram>
    let datagramContinuation: AsyncStream<Datagram>.Continuation
    // Touched only in start, stop and deinit.
    nonisolated(unsafe) var readSources: [any DispatchSourceRead] = []
    var tasks: [Task<Void, Never>] = []
    let ids: any IdentifierSource
    /// `--pcap`: a plaintext copy of every RTP/RTCP packet.
    let tap: MediaTap?

    var sender: RTPSender
    var remote: UDPSocket.Address?
    var remoteRTCP: UDPSocket.Address?
    var source: any AudioSource = SilenceSource()
    var sink: any AudioSink = NullSink()
    var sourceEnded = false
    var direction: MediaDirection
    var dtmfSender: DTMFSender
    var inBandQueue: [DTMFDigit] = []
    var inBandTone: (generator: ToneGenerator, framesLeft: Int, pauseLeft: Int)?
    var dtmfReceiver = DTMFReceiver()
    var detector = DTMFDetector()
    var jitterBuffer: JitterBuffer
    var reception: RTPReceptionStatistics?
    var stats = MediaStatistics()
    var ntpBase: UInt64
    var lastSRCompact: UInt32 = 0
    var lastSRArrival: Duration?
    var lastReportedPacketCount: UInt32 = 0
    var sendBuffer: [UInt8]
    var frame: [Int16]
    var running = false
    /// ICE + DTLS-SRTP on the RTP socket (``MediaSessionConfiguration/webRTC``).
    var webrtc: WebRTCTransport?
    /// Callers of ``webRTCLocalParameters()`` waiting for candidate gathering to end.
    var gatheringWaiters: [CheckedContinuation<Void, Never>] = []
    var connectedPeer: UDPSocket.Address?

    struct Datagram: Sendable {
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
    func releaseRTCPPort() {
        guard rtcpSocket != nil else { return }
        rtcpReadSource?.cancel()
        rtcpReadSource = nil
        rtcpSocket = nil
    }

    /// ``MediaSessionConfiguration/connectSocket``: (re)connects the RTP socket to the remote.
    func connectIfConfigured() {
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

    // The media clock (MediaSession+MediaClock.swift), receiving (MediaSession+Receive.swift) and
    // RTCP sending (MediaSession+RTCP.swift) are extensions in their own files.
}
