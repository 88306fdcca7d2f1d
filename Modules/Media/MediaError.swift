/// The typed error of the Media module: a ``Code`` to compare on, plus context for one clear line.
///
/// Equality compares the code only, so tests can write `#expect(throws: MediaError(.badSDPLine))`.
public struct MediaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// SDP (RFC 8866 §5): a line is not `<type>=<value>` or is out of order.
        case badSDPLine
        /// SDP: a mandatory line (v=, o=, s=, t=, c=) is missing.
        case missingSDPLine
        /// SDP: a field of a known line or attribute is malformed.
        case badSDPField
        /// RFC 3264 §6: no common codec / transport in an offer or answer.
        case negotiationFailed
        /// RTP/RTCP (RFC 3550 §5.1, §6.4): a packet is too short or malformed.
        case malformedPacket
        /// SRTP (RFC 3711): libsrtp refused to set up a context, or the key is the wrong size.
        case srtpSetupFailed
        /// SRTP: authentication failed (tampered or wrongly keyed packet).
        case srtpAuthenticationFailed
        /// SRTP: a replayed (or too old) packet (RFC 3711 §3.3.2).
        case srtpReplay
        /// SRTP: any other protect/unprotect failure.
        case srtpFailed
        /// WAV: not a RIFF/WAVE PCM file we can read.
        case badWAV
        /// ALSA: opening or configuring a PCM device failed.
        case audioDevice
        /// A socket call failed.
        case socket
        /// The operation is invalid in the current state.
        case invalidState
    }

    public let code: Code
    /// Human-readable context (line number, field, errno...). Never contains key material.
    public let detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public static func == (lhs: MediaError, rhs: MediaError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { detail.isEmpty ? "media: \(code.rawValue)" : "media: \(code.rawValue): \(detail)" }
}
