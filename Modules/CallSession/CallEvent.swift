import Media

/// What a ``Call`` reports on its event stream (the tools print them as JSON Lines).
public enum CallEvent: Sendable, Hashable {
    /// The state changed.
    case state(CallState)
    /// 100 Trying (RFC 3261 §13.2.2.1).
    case trying
    /// 180 Ringing (caller) or we are alerting (callee).
    case ringing
    /// 183 with SDP: early media started (RFC 3960).
    case earlyMedia
    /// The call is answered; media flows with this codec, security and profile.
    case answered(codec: String, srtp: Bool, telephoneEvent: Bool, media: CallMediaProfile)
    /// WebRTC: ICE selected a candidate pair (RFC 8445 §8), `sinceAnswer` milliseconds after
    /// the answer (sent or received; nil when it came first).
    case iceConnected(local: String, remote: String, sinceAnswer: Double?)
    /// WebRTC: the DTLS handshake is done, the peer's certificate matched its `a=fingerprint`
    /// (RFC 5763 §5) and SRTP is keyed (RFC 5764 §4.2).
    case dtlsConnected(profile: String, role: String, sinceAnswer: Double?)
    /// WebRTC with a STUN server: candidate gathering ended (RFC 8445 §5.1.1.2) and the SDP
    /// goes out with `host` and `serverReflexive` candidates, after waiting `waitedMilliseconds`
    /// for gathering (at most the gathering timeout; no trickle ICE).
    case iceGathered(host: Int, serverReflexive: Int, relayed: Int, waitedMilliseconds: Double)
    /// The TURN allocation failed or was lost and ICE goes on without a relayed candidate
    /// (`ICETransportPolicy.all`; with `.relay` the call ends with `mediaFailed`).
    case relayFailed(reason: String)
    /// WebRTC: an ICE restart (RFC 8445 §9; ours or the peer's re-offer) selected its new pair,
    /// `milliseconds` after the restart; media stayed on the old pair until then.
    case iceRestarted(byPeer: Bool, local: String, remote: String, milliseconds: Double)
    /// A DTMF digit from the peer: RFC 4733 event, in-band tone, or SIP INFO.
    case dtmf(DTMFDigit, via: String)
    /// The stream went on hold (by us or by the peer), with the direction now in force.
    case held(byPeer: Bool, direction: MediaDirection)
    /// The stream is two-way again.
    case resumed(byPeer: Bool)
    /// The first RTP packet arrived from the peer (with SRTP: the first that authenticated and
    /// decrypted), `sinceAnswer` milliseconds after the answer.
    case firstRTP(sinceAnswer: Double?)
    /// The audio source ended (e.g. end of a WAV file).
    case sourceEnded
    /// The call ended; reported once, last.
    case ended(CallEndReason, CallStatistics)
}
