/// Which media profile a ``Call`` offers, or accepts when answering (``CallOptions/mediaMode``).
public enum CallMediaMode: String, Sendable, Hashable, CaseIterable {
    /// Caller: RTP (plain, or SDES-SRTP with ``CallOptions/srtp``). Callee: follow the offer —
    /// a `UDP/TLS/RTP/SAVPF` offer is answered in WebRTC mode, anything else as RTP.
    case auto
    /// RTP/AVP or RTP/SAVP only: a WebRTC offer is refused (488).
    case rtp
    /// WebRTC media (RFC 8827 profile as Asterisk `webrtc=yes` expects): `UDP/TLS/RTP/SAVPF`,
    /// ICE (RFC 8445), DTLS-SRTP (RFC 5763/5764) with `a=setup:actpass` in offers, rtcp-mux,
    /// `a=mid` + BUNDLE. The callee refuses (488) an offer that is not WebRTC.
    case webRTC = "webrtc"
}

/// The media profile a call ended up with, as reported in ``CallEvent/answered(codec:srtp:telephoneEvent:media:)``.
public enum CallMediaProfile: String, Sendable, Hashable {
    /// RTP/AVP, unencrypted.
    case rtp
    /// RTP/SAVP with SDES keys (RFC 4568).
    case sdes
    /// UDP/TLS/RTP/SAVPF: ICE + DTLS-SRTP.
    case webRTC = "webrtc"
}
