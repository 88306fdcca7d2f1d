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
    /// The call is answered; media flows with this codec and security.
    case answered(codec: String, srtp: Bool, telephoneEvent: Bool)
    /// A DTMF digit from the peer: RFC 4733 event, in-band tone, or SIP INFO.
    case dtmf(DTMFDigit, via: String)
    /// The stream went on hold (by us or by the peer), with the direction now in force.
    case held(byPeer: Bool, direction: MediaDirection)
    /// The stream is two-way again.
    case resumed(byPeer: Bool)
    /// The first RTP packet arrived from the peer.
    case firstRTP
    /// The audio source ended (e.g. end of a WAV file).
    case sourceEnded
    /// The call ended; reported once, last.
    case ended(CallEndReason, CallStatistics)
}
