/// How a ``MediaSession`` runs ICE + DTLS-SRTP on its single socket (WebRTC-style media,
/// `UDP/TLS/RTP/SAVPF` with rtcp-mux; RFC 8445, RFC 5763/5764, RFC 7983).
public struct WebRTCConfiguration: Sendable, Hashable {
    public var ice = ICEAgent.Configuration()
    /// Our initial ICE role: the offerer controls (RFC 8445 §6.1.1); a lite peer makes us
    /// controlling whatever this says.
    public var iceRole: ICEAgent.Role = .controlling
    /// Server-reflexive candidates from this STUN server (nil: none; tests on loopback must
    /// not use one, WEBRTC-NOTES).
    public var stunServer: UDPSocket.Address?
    /// Relayed candidates from this TURN server (RFC 8656; nil: none). The allocation is part
    /// of gathering, bounded by `ice.gatheringTimeout` like the STUN server's answer.
    public var turn: TURNClient.Configuration?
    /// Which local candidates ICE may use (W3C `RTCIceTransportPolicy`): `.relay` gathers and
    /// offers only the TURN relayed candidate, so every check and all media go through the
    /// TURN server; no allocation then means ICE failure.
    public var icePolicy: ICETransportPolicy = .all
    /// Host candidate addresses; nil = the bound address, or every usable interface when
    /// bound to `0.0.0.0`.
    public var hostAddresses: [String]?
    /// Gather on loopback too (only when bound to `0.0.0.0` and ``hostAddresses`` is nil).
    public var includeLoopback = false
    /// `use_srtp` profiles offered in the DTLS handshake, preferred first. Asterisk accepts
    /// only the AES-CM ones (WEBRTC-NOTES); GCM is available when wanted.
    public var srtpProfiles: [SRTPProfile] = [.aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32]
    /// The DTLS flight retransmission schedule (RFC 6347 §4.2.4; 100 ms doubling to 3 s, D11).
    public var dtlsRetransmission = DTLSTransport.Retransmission()

    public init() {}
}

/// W3C `RTCIceTransportPolicy`: every candidate, or relayed candidates only.
public enum ICETransportPolicy: String, Sendable, Hashable {
    case all
    case relay
}

/// What our SDP carries for WebRTC (ICE credentials + candidates, certificate fingerprint).
public struct WebRTCLocalParameters: Sendable, Hashable {
    public var ice: ICEParameters
    public var fingerprint: CertificateFingerprint
}

/// Progress and failures of the WebRTC transport, on ``MediaSession/events`` as
/// ``MediaEvent/webRTC(_:)``.
public enum WebRTCEvent: Sendable, Hashable, CustomStringConvertible {
    case iceStateChanged(ICEAgent.State)
    case iceRoleChanged(ICEAgent.Role)
    /// The nominated pair (our candidate → the peer's).
    case selectedPair(local: UDPSocket.Address, remote: UDPSocket.Address)
    /// DTLS done, fingerprint verified, SRTP keyed: media flows.
    case dtlsConnected(profile: SRTPProfile, role: DTLSRole)
    /// ICE failed (every pair failed).
    case iceFailed
    /// RFC 7675: consent lost; sending stopped.
    case consentLost
    /// DTLS failed; `error.description` is the reason to print (e.g. fingerprint mismatch).
    case dtlsFailed(DTLSError)
    /// The TURN server granted a relayed candidate (RFC 8656 §7.3).
    case relayAllocated(relayed: UDPSocket.Address, mapped: UDPSocket.Address?)
    /// The TURN allocation failed or was lost: no relayed candidate (with
    /// ``ICETransportPolicy/relay`` an ``iceFailed`` follows).
    case turnFailed(TURNError)

    public var description: String {
        switch self {
        case .iceStateChanged(let s): "ice \(s.rawValue)"
        case .iceRoleChanged(let r): "ice role \(r.rawValue)"
        case .selectedPair(let l, let r): "ice selected \(l) -> \(r)"
        case .dtlsConnected(let p, let r): "dtls connected as \(r.rawValue), \(p.sdesName)"
        case .iceFailed: "ice failed"
        case .consentLost: "ice consent lost"
        case .dtlsFailed(let e): e.description
        case .relayAllocated(let r, _): "turn relayed candidate \(r)"
        case .turnFailed(let e): e.description
        }
    }
}
