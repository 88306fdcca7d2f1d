/// The typed error of DTLS-SRTP (RFC 5763/5764): a ``Code`` and one printable reason.
public struct DTLSError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Key or certificate generation, or SSL context set-up, failed.
        case setupFailed
        /// RFC 5763 §5: the peer's certificate does not match its `a=fingerprint`.
        case fingerprintMismatch
        /// The peer's SDP has no usable `a=fingerprint` (or an unsupported hash function).
        case missingFingerprint
        /// The DTLS handshake failed (alert, no common SRTP profile, bad record…).
        case handshakeFailed
        /// RFC 5764 §4.1.2: no `use_srtp` profile was negotiated.
        case noSRTPProfile
        /// The peer closed the association (close_notify or fatal alert after the handshake).
        case closed
    }

    public let code: Code
    /// Never contains key material.
    public let detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public static func == (lhs: DTLSError, rhs: DTLSError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { detail.isEmpty ? "dtls: \(code.rawValue)" : "dtls: \(code.rawValue): \(detail)" }
}

/// RFC 5763 §5 / RFC 4145: which end of the DTLS handshake we are.
public enum DTLSRole: String, Sendable, Hashable {
    case client
    case server

    /// Our role from the peer's `a=setup`: it is `active` → we are the server; `passive` → we
    /// are the client; `actpass` (it offered, we answered `active`) → we are the client.
    public init?(remoteSetup: SetupRole) {
        switch remoteSetup {
        case .active: self = .server
        case .passive, .actpass: self = .client
        case .holdconn: return nil
        }
    }
}
