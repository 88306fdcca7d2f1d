/// Everything a ``MediaSession`` needs to run one negotiated audio stream.
public struct MediaSessionConfiguration: Sendable, Hashable {
    /// Address to bind (`127.0.0.1` in tests, `0.0.0.0` or a specific interface otherwise).
    public var localHost: String = "127.0.0.1"
    /// RTP port to bind (0 = ephemeral).
    public var localPort: UInt16 = 0
    /// RFC 5761 / RFC 8858 mux-only: RTP and RTCP on one socket from the start (WebRTC, or an
    /// already negotiated mux). When false (the default for an offer or answer still to be
    /// negotiated) RTP port + 1 is bound for RTCP (RFC 3550 §11) and given back as soon as an
    /// applied answer agrees to rtcp-mux (RFC 5761 §5.1.3).
    public var rtcpMux: Bool = false
    public var law: G711.Law = .aLaw
    /// RTP payload type of the audio codec (8 PCMA, 0 PCMU by RFC 3551).
    public var payloadType: UInt8 = 8
    /// telephone-event payload type (RFC 4733); nil sends DTMF in-band.
    public var telephoneEventPayloadType: UInt8? = 101
    /// Frame length (`a=ptime`): 20 ms = 160 samples.
    public var ptime: Duration = .milliseconds(20)
    public var direction: MediaDirection = .sendrecv
    /// SDES SRTP keys (ours for sending, the peer's for receiving); nil = plain RTP.
    public var srtp: SRTPKeys?
    public var jitterBuffer = JitterBuffer.Configuration()
    /// RTCP report interval (RFC 3550 §6.2; randomised ×0.5…1.5).
    public var rtcpInterval: Duration = .seconds(5)
    /// How often a `.statistics` event is emitted (nil = never; call ``MediaSession/statistics``).
    public var statisticsInterval: Duration? = nil
    /// Run the Goertzel DTMF detector on received audio (events `.inBandDTMF`).
    public var detectInBandDTMF: Bool = false
    /// Symmetric RTP (RFC 4961): send to wherever valid media arrives from (NAT, relays that
    /// start before the answer). With SRTP only authenticated packets move the destination.
    public var latchRemote: Bool = false
    /// Connect the RTP socket to the remote (when not latching): about 0.5 µs less per sent
    /// packet, and the kernel drops datagrams from any other source. For symmetric peers
    /// (PBX, SBC) whose media comes from the address in their SDP.
    public var connectSocket: Bool = false
    /// RFC 3550 §6.5.1 CNAME.
    public var cname: String = "astra@localhost"
    /// DTMF tone and pause lengths.
    public var dtmfToneDuration: Duration = .milliseconds(100)
    public var dtmfPause: Duration = .milliseconds(60)
    /// WebRTC-style media: ICE + DTLS-SRTP on the (muxed) socket before SRTP flows; nil = off.
    public var webRTC: WebRTCConfiguration? = nil

    public init() {}

    /// A configuration from an offer/answer result (codec, PTs, ptime, direction, keys).
    public init(negotiated: NegotiatedAudio, localHost: String = "0.0.0.0", localPort: UInt16) {
        self.init()
        self.localHost = localHost
        self.localPort = localPort
        self.rtcpMux = negotiated.rtcpMux
        self.law = negotiated.codec.law
        self.payloadType = negotiated.payloadType
        self.telephoneEventPayloadType = negotiated.telephoneEventPayloadType
        self.ptime = .milliseconds(negotiated.ptime)
        self.direction = negotiated.direction
        if let local = negotiated.localKey, let remote = negotiated.remoteKey {
            self.srtp = SRTPKeys(local: local, remote: remote)
        }
    }

    /// Samples per frame at 8 kHz.
    public var samplesPerFrame: Int {
        let c = ptime.components
        return Int((c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000) * 8)
    }
}

/// The two SDES keys of a call: ours protects what we send, the peer's unprotects what we
/// receive (RFC 4568 §6.1). Redacted when printed.
public struct SRTPKeys: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var local: SRTPKeyMaterial
    public var remote: SRTPKeyMaterial
    public init(local: SRTPKeyMaterial, remote: SRTPKeyMaterial) {
        self.local = local
        self.remote = remote
    }
    public var description: String { "SRTPKeys(\(local.profile.sdesName)/\(remote.profile.sdesName), <redacted>)" }
    public var debugDescription: String { description }
}

/// Counters and estimates of one session (RFC 3550 §6.4 terms).
public struct MediaStatistics: Sendable, Hashable {
    public var packetsSent = 0
    public var octetsSent = 0
    public var dtmfPacketsSent = 0
    public var packetsReceived = 0
    public var octetsReceived = 0
    /// Of ``packetsReceived``, those that arrived while we held the call (not played; not lost).
    public var packetsIgnoredOnHold = 0
    public var dtmfPacketsReceived = 0
    /// SRTP/SRTCP packets that failed authentication (tampered, wrong key).
    public var srtpAuthenticationFailures = 0
    /// SRTP packets dropped as replays (RFC 3711 §3.3.2).
    public var srtpReplays = 0
    public var malformedPackets = 0
    /// Packets with a payload type we did not negotiate.
    public var unknownPayloadType = 0
    public var rtcpSent = 0
    public var rtcpReceived = 0
    /// Of ``rtcpReceived``, those that came on the RTCP port (RTP + 1: mux not in use).
    public var rtcpReceivedOnRTCPPort = 0
    /// From our reception statistics (RFC 3550 A.3).
    public var cumulativeLost: Int64 = 0
    public var extendedHighestSequence: UInt32 = 0
    /// Interarrival jitter (A.8) in milliseconds.
    public var jitterMilliseconds: Double = 0
    /// From the peer's last report block about us.
    public var remoteFractionLost: Double?
    public var remoteCumulativeLost: Int32?
    /// RFC 3550 §6.4.1 round trip (needs an SR from us echoed in the peer's report).
    public var roundTripTime: Duration?
    public var jitterBuffer = JitterBuffer.Statistics()
    /// Send pacing of audio frames (send times against their absolute deadlines).
    public var pacing = PacingStatistics()
    /// Frames the media clock skipped after a stall (`FramePacer/maxBurst`).
    public var framesSkipped: Int64 = 0

    public init() {}
}

/// What a session reports on its ``MediaSession/events`` stream.
public enum MediaEvent: Sendable, Hashable {
    /// An RFC 4733 telephone event began or ended.
    case dtmf(DTMFReceiver.Event)
    /// A key detected in the received audio (Goertzel), when enabled.
    case inBandDTMF(DTMFDigit)
    /// Periodic statistics.
    case statistics(MediaStatistics)
    /// An RTCP compound packet arrived (after SRTCP).
    case rtcp([RTCPPacket])
    /// The peer sent an RTCP BYE (RFC 3550 §6.6).
    case remoteBye(reason: String?)
    /// The audio source ended (e.g. end of a WAV file).
    case sourceEnded
    /// Symmetric RTP moved our destination to this address.
    case remoteLatched(UDPSocket.Address)
    /// The first RTP packet arrived from the peer (a new SSRC).
    case remoteSource(ssrc: UInt32)
    /// ICE / DTLS-SRTP progress and failures (WebRTC mode).
    case webRTC(WebRTCEvent)
}
