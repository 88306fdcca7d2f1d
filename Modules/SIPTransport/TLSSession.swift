import COpenSSL
import Glibc
import TLSMemory

/// One OpenSSL client connection for SIP over TLS and WSS: the client context (TLS ≥ 1.2, the
/// server verified against the system or a given CA, SNI, the host or IP address checked) over
/// TLSMemory's memory-BIO session, with failures as ``TransportError``s. The owning actor feeds
/// ciphertext in from the socket and drains it out, so OpenSSL never touches the descriptor.
///
/// Not Sendable: owned by exactly one ``StreamConnection`` actor, or by the one thread of the
/// connection-oriented load engine.
package final class TLSSession {
    public enum HandshakeStep {
        case done
        case wantMore
        case failed(TransportError)
    }

    /// Kept alive as long as the session: `SSL_new` does not own its context.
    private let context: TLSClientContext
    private let session: TLSMemorySession
    private let transport: TransportKind
    private let peer: String

    /// A flow's connection, on the process's shared context for `options`
    /// (``TLSClientContextCache``: trust store loaded once, idle record buffers released).
    convenience init(options: TLSOptions, host: String, transport: TransportKind, peer: String) throws(TransportError) {
        let context = try TLSClientContextCache.context(for: options, transport: transport, peer: peer)
        try self.init(context: context, host: host, transport: transport, peer: peer)
    }

    /// A session on a shared context (verification settings and trust store loaded once).
    public init(context: TLSClientContext, host: String, transport: TransportKind, peer: String) throws(TransportError) {
        self.transport = transport
        self.peer = peer
        self.context = context
        let options = context.options
        let session: TLSMemorySession
        do { session = try TLSMemorySession(context: context.ctx, role: .client) } catch {
            throw TransportError(.tlsHandshakeFailed, transport: transport, peer: peer, error.message)
        }
        let ssl = session.ssl
        let name = options.serverName ?? host
        let isIP = SocketAddress(ip: name, port: 0) != nil
        if !isIP { _ = astra_SSL_set_tlsext_host_name(ssl, name) }
        if options.verifyPeer {
            let bare = name.hasPrefix("[") ? String(name.dropFirst().dropLast()) : name
            let ok = isIP ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), bare) : SSL_set1_host(ssl, bare)
            if ok != 1 {
                throw TransportError(
                    .invalidArgument, transport: transport, peer: peer, "cannot verify against name \(name)")
            }
        }
        self.session = session
    }

    /// True once the peer sent close_notify.
    public var peerClosed: Bool { session.peerClosed }

    /// True once the server sent anything at all (a ServerHello, an alert, or plain text).
    public private(set) var receivedAny = false
    /// The server's first byte is no TLS record's content type (RFC 8446 §5.1: 20…24): it
    /// answered in plain text — an HTTP 400 from a ws:// port, a SIP response from a TCP one.
    public private(set) var answeredInPlainText = false

    /// Ciphertext received from the socket.
    public func feed(_ bytes: [UInt8]) {
        if !receivedAny, let first = bytes.first {
            receivedAny = true
            answeredInPlainText = !Self.isRecordContentType(first)
        }
        session.feed(bytes)
    }

    /// RFC 8446 §5.1 ContentType: change_cipher_spec(20), alert(21), handshake(22),
    /// application_data(23), heartbeat(24, RFC 6520). Any other first byte is not TLS.
    static func isRecordContentType(_ byte: UInt8) -> Bool { (20...24).contains(byte) }

    /// Advances the handshake with what was fed so far; a failure says whether the server's
    /// certificate was rejected (and why) or the handshake itself failed.
    public func handshake() -> HandshakeStep {
        if answeredInPlainText {
            // OpenSSL would say "wrong version number" or "packet length too long": say what it is.
            return .failed(TransportError(.tlsHandshakeFailed, transport: transport, peer: peer, Self.plainTextDetail))
        }
        switch session.handshake() {
        case .done: return .done
        case .wantMore: return .wantMore
        case .failed:
            let verify = SSL_get_verify_result(session.ssl)
            if verify != X509_V_OK {
                let reason = String(cString: X509_verify_cert_error_string(verify))
                return .failed(
                    TransportError(
                        .certificateVerificationFailed, transport: transport, peer: peer,
                        "server certificate rejected: \(reason) (X509 error \(verify))"))
            }
            return .failed(
                TransportError(
                    .tlsHandshakeFailed, transport: transport, peer: peer,
                    "TLS handshake failed: \(OpenSSLError.last())"))
        }
    }

    /// The detail of a handshake the server answered in plain text (FailureWords words it).
    public static let plainTextDetail = "answered in plain text, not TLS"

    /// The detail of a handshake the server never answered within `bound` (`… within 3 s`).
    public static let silentPrefix = "no TLS answer within "
    public static func silentDetail(_ bound: Duration) -> String {
        let (seconds, attoseconds) = bound.components
        let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return silentPrefix + (ms % 1000 == 0 ? "\(seconds) s" : "\(ms) ms")
    }

    /// The server certificate's notAfter in seconds since the epoch (nil before the handshake,
    /// or when the server sent none): what a monitor warns on before the certificate expires
    /// (RFC 5280 §4.1.2.5). Read whether or not the chain was verified.
    public var peerCertificateNotAfter: Int? {
        guard let certificate = SSL_get0_peer_certificate(session.ssl) else { return nil }
        return VerifiedChainCache.seconds(X509_get0_notAfter(certificate))
    }

    /// The negotiated protocol version, e.g. `TLSv1.3`.
    public var version: String { session.version }

    /// Decrypts everything available; throws on a TLS-level failure.
    public func readPlaintext() throws(TransportError) -> [UInt8] {
        do { return try session.readPlaintext() } catch {
            throw TransportError(.protocolViolation, transport: transport, peer: peer, error.message)
        }
    }

    /// Encrypts `plaintext`; the records are then in ``drainOutbound()``.
    public func write(_ plaintext: [UInt8]) throws(TransportError) {
        do { try session.write(plaintext) } catch {
            throw TransportError(.sendFailed, transport: transport, peer: peer, error.message)
        }
    }

    /// Ciphertext waiting to go to the socket.
    public func drainOutbound() -> [UInt8] { session.drainOutbound() }

    /// Queues a close_notify (RFC 5246 §7.2.1).
    public func shutdown() { session.shutdown() }
}
