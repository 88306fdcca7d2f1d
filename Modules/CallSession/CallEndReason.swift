import SIPDialog

/// Why a call ended, for events and exit codes (a superset of `InviteEndReason` at call level).
public enum CallEndReason: Sendable, Hashable, CustomStringConvertible {
    /// We hung up (BYE after the answer).
    case localHangUp
    /// The peer sent BYE (RFC 3261 §15.1.2).
    case remoteHangUp
    /// 486 Busy Here or 600 Busy Everywhere.
    case busy(status: Int)
    /// 603 Decline, or we declined an incoming call.
    case declined(status: Int)
    /// CANCEL before the answer (RFC 3261 §9): ours, or the caller's.
    case cancelled
    /// Not answered in time; the INVITE was cancelled.
    case noAnswer
    /// No RTP from the peer for the configured time while the call was active (RFC 3550 §6.3.5 in spirit).
    case rtpTimeout
    /// A transaction timed out (408, Timer B/F, no ACK, session expiry).
    case timeout
    /// The transport failed (RFC 3261 §8.1.3.1: treated as 503).
    case networkError
    /// Any other final failure with its SIP status.
    case failed(status: Int, reason: String)
    /// WebRTC media could not be secured: ICE failed or lost consent (RFC 8445 §8, RFC 7675),
    /// DTLS failed — e.g. the peer's certificate does not match its `a=fingerprint` (RFC 5763
    /// §5) — or neither finished in time. The call is hung up (BYE).
    case mediaFailed(String)

    /// Maps the signalling layer's reason (RFC 3261 §21 status classes).
    public init(_ reason: InviteEndReason) {
        switch reason {
        case .localHangUp: self = .localHangUp
        case .remoteHangUp: self = .remoteHangUp
        case .busy(let status): self = .busy(status: status)
        case .declined: self = .declined(status: 603)
        case .cancelled: self = .cancelled
        case .noAnswer: self = .noAnswer
        case .rejected(let status):
            switch status {
            case 486, 600: self = .busy(status: status)
            case 603: self = .declined(status: status)
            default: self = .failed(status: status, reason: "rejected locally")
            }
        case .ackTimeout, .sessionExpired, .timeout: self = .timeout
        case .transportError: self = .networkError
        case .authenticationFailed(let status): self = .failed(status: status, reason: "authentication failed")
        case .failed(let status, let text): self = .failed(status: status, reason: text)
        }
    }

    /// A stable snake_case name for JSON.
    public var name: String {
        switch self {
        case .localHangUp: "local_hangup"
        case .remoteHangUp: "remote_hangup"
        case .busy: "busy"
        case .declined: "declined"
        case .cancelled: "cancelled"
        case .noAnswer: "no_answer"
        case .rtpTimeout: "rtp_timeout"
        case .timeout: "timeout"
        case .networkError: "network_error"
        case .failed: "failed"
        case .mediaFailed: "media_failed"
        }
    }

    /// The final SIP status behind the reason, when there was one.
    public var status: Int? {
        switch self {
        case .busy(let s), .declined(let s), .failed(let s, _): s
        case .cancelled: 487
        case .timeout: 408
        default: nil
        }
    }

    /// Whether the call was established and then ended normally (a hang-up from either side).
    public var isNormalClearing: Bool { self == .localHangUp || self == .remoteHangUp }

    public var description: String {
        switch self {
        case .localHangUp: "local hang-up"
        case .remoteHangUp: "remote hang-up"
        case .busy(let s): "busy (\(s))"
        case .declined(let s): "declined (\(s))"
        case .cancelled: "cancelled (487)"
        case .noAnswer: "no answer"
        case .rtpTimeout: "RTP timeout"
        case .timeout: "timeout (408)"
        case .networkError: "network error"
        case .failed(let s, let r): "failed (\(s) \(r))"
        case .mediaFailed(let r): "media failed: \(r)"
        }
    }
}
