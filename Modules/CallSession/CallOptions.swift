import Media
import SIPDialog

/// How a ``Call`` sets up its media and signalling.
public struct CallOptions: Sendable {
    /// The address put in SDP `c=` and bound for RTP (an IPv4 literal).
    public var mediaHost: String = "127.0.0.1"
    /// The RTP port put in SDP when it differs from the bound one (a port forward or a relay in
    /// front of us); nil: the bound port (``MediaSessionConfiguration/localPort``, 0 = ephemeral).
    public var advertisedMediaPort: UInt16?
    /// SDES-SRTP (RFC 4568): offer only `RTP/SAVP` with `a=crypto`, and refuse plain RTP.
    public var srtp = false
    /// Hang up when no RTP arrived for this long while active (nil: never).
    public var rtpTimeout: Duration? = .seconds(30)
    /// Detect DTMF tones in the received audio too (Goertzel; costs CPU).
    public var detectInBandDTMF = false
    /// Signalling settings (timers, no-answer timeout, session timers, User-Agent).
    public var invite = InviteSettings()
    /// Media engine settings (jitter buffer, RTCP interval…); codec, keys and peer come from SDP.
    public var media = MediaSessionConfiguration()
    public init() {}
}

/// A ``Call`` could not be set up.
public struct CallError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The media socket could not be bound or SRTP set up.
        case media
        /// The peer's INVITE is unusable (no Contact, no From tag…).
        case badRequest
        /// The flow has no local binding yet (not connected).
        case notConnected
    }

    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
    public static func == (lhs: CallError, rhs: CallError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
