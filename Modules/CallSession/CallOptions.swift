import Media
import SIPDialog

/// How a ``Call`` sets up its media and signalling.
public struct CallOptions: Sendable {
    /// The address put in SDP `c=` and bound for RTP (an IPv4 literal).
    public var mediaHost: String = "127.0.0.1"
    /// The RTP port put in SDP when it differs from the bound one (a port forward or a relay in
    /// front of us); nil: the bound port (`MediaSessionConfiguration.localPort`, 0 = ephemeral).
    public var advertisedMediaPort: UInt16?
    /// SDES-SRTP (RFC 4568): offer only `RTP/SAVP` with `a=crypto`, and refuse plain RTP.
    public var srtp = false
    /// RTP or WebRTC media (ICE + DTLS-SRTP); ``CallMediaMode/auto`` lets a callee follow the offer.
    public var mediaMode: CallMediaMode = .auto
    /// WebRTC settings (STUN server, SRTP profiles, ICE timers); the call sets the ICE role
    /// (the offerer controls, RFC 8445 §6.1.1).
    public var webRTC = WebRTCConfiguration()
    /// WebRTC: hang up (``CallEndReason/mediaFailed(_:)``) when ICE + DTLS have not secured the
    /// media this long after the answer.
    public var webRTCTimeout: Duration = .seconds(10)
    /// Hang up when no RTP arrived for this long while active (nil: never).
    public var rtpTimeout: Duration? = .seconds(30)
    /// Detect DTMF tones in the received audio too (Goertzel; costs CPU).
    public var detectInBandDTMF = false
    /// Signalling settings (timers, no-answer timeout, session timers, User-Agent).
    public var invite = InviteSettings()
    /// Media engine settings (jitter buffer, RTCP interval…); codec, keys and peer come from SDP.
    public var media = MediaSessionConfiguration()
    /// A plaintext copy of every RTP/RTCP packet (astra-call `--pcap`); nil: none.
    public var mediaTap: MediaTap?
    public init() {}
}
