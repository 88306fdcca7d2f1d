import SIPDialog
import SIPTransport

/// Why a line could not register or a call failed, in words a person acts on, with the fix —
/// for everything a person reads: text mode, the one stderr line in JSON mode and the Nagios
/// status text (the JSON `reason` keeps the stable machine text). Each hint is said once, here. Built from the
/// one-line messages the tools already carry: a ``TransportError`` description starts with its
/// code (`connectFailed [TCP 127.0.0.1:1]: connect(): Connection refused`), a
/// ``RegistrationFailure`` names the status.
public enum FailureWords {
    /// `message` explained for `setup`'s line; unknown messages come back as they are.
    public static func explain(_ message: String, setup: LineSetup) -> String {
        let server = setup.target.description
        let transport = setup.transport.viaToken
        if let (code, peer, detail) = transportParts(message) {
            let at = peer ?? server
            switch code {
            case .resolutionFailed:
                return "the name \(setup.target.host) does not resolve (\(detail)): check --server or the line's server"
            case .connectFailed:
                return "cannot connect to \(at) over \(transport) (\(lower(detail))): is the server running, and is "
                    + "that its \(setup.transport.rawValue) port? (--server HOST:PORT, --transport)"
            case .connectTimeout:
                return "no connection to \(at) within the timeout: a wrong address, or a firewall dropping \(transport)"
            case .certificateVerificationFailed:
                let why = certificateReason(detail)
                if why.hasPrefix("hostname mismatch") || why.hasPrefix("IP address mismatch") {
                    return "the server's certificate is not for \(setup.target.host) (\(why)): connect by the name in "
                        + "the certificate (--server), or give it as tls_server_name in the line"
                }
                return "the server's certificate is not trusted (\(why)): pass --ca-file with the CA that signed "
                    + "it (or ca_file in the line)"
            case .tlsHandshakeFailed where detail == TLSSession.plainTextDetail:
                let plain = setup.transport == .wss ? "ws" : "tcp"
                return "\(at) answered in plain text, not TLS (a ws:// or tcp port? try --transport \(plain))"
            case .tlsHandshakeFailed where detail.hasPrefix(TLSSession.silentPrefix):
                let plain = setup.transport == .wss ? "ws" : "tcp"
                return "no TLS answer from \(at) within \(detail.dropFirst(TLSSession.silentPrefix.count)): is it a "
                    + "plain WS/TCP port? (try --transport \(plain))"
            case .tlsHandshakeFailed:
                return "the TLS handshake with \(at) failed (\(detail)): is that a TLS port? (--transport, --server)"
            case .webSocketHandshakeFailed:
                return "\(at) refused the WebSocket upgrade (\(detail)): check --ws-path (now "
                    + "\(setup.line.effectiveWSPath ?? "/ws")) and the port"
            case .subprotocolRefused:
                return "\(at) does not speak SIP over WebSocket (no 'sip' subprotocol): a wrong path or port?"
            case .peerClosed:
                return "\(at) closed the connection (\(detail))"
            case .keepAliveTimeout:
                return "\(at) stopped answering keep-alives: the network or the server went away"
            case .messageTooLarge:
                return "a message was too large for \(transport) (\(detail)): use --transport tcp"
            default:
                return "\(transport) to \(at) failed: \(detail)"
            }
        }
        if message.hasPrefix("credentials rejected") {
            return "the registrar refused the credentials (\(status(message))): check the password "
                + "(--password-file) and the authentication user (--auth-user)"
        }
        if message.hasPrefix("registrar answered ") {
            let code = Int(message.dropFirst("registrar answered ".count).prefix(3)) ?? 0
            let said = String(message.dropFirst("registrar answered ".count))
            switch code {
            case 403: return "the registrar forbids this account (\(said)): is it enabled, and allowed from here?"
            case 404: return "the registrar does not know \(setup.aor) (\(said)): check the user and the domain"
            case 407: return "a proxy asks for credentials (\(said)): pass --password-file"
            case 500...599: return "the server failed (\(said)): try again later, or check the server"
            default: return "the registrar refused the registration (\(said))"
            }
        }
        if message.hasPrefix("cannot answer ") {
            return message.contains("no password")
                ? "the registrar asks for a password (\(status(message))): pass --password-file or put it in the line"
                : "the registrar's challenge cannot be answered: \(message.dropFirst("cannot answer ".count))"
        }
        if message.hasPrefix("no response from the registrar") || message.hasPrefix("timeout after") {
            return "no answer from \(server) over \(transport) in time: check --server HOST:PORT and --transport, "
                + "and that the server is up"
        }
        return message
    }

    /// `(code, peer, detail)` of a TransportError description.
    static func transportParts(_ message: String) -> (TransportError.Code, String?, String)? {
        // `code: detail` or `code [TRANSPORT host:port]: detail` (the peer holds colons too).
        let name = message.prefix { $0.isLetter }
        guard let code = TransportError.Code(rawValue: String(name)) else { return nil }
        var rest = message[name.endIndex...]
        var peer: String?
        // `]: ` ends the location: an IPv6 peer (`[::1]:5061`) has `]:` with no space after it.
        if rest.hasPrefix(" ["), let close = rest.firstRange(of: "]: ") {
            let inside = rest[rest.index(rest.startIndex, offsetBy: 2)..<close.lowerBound]
            peer = inside.split(separator: " ", maxSplits: 1).last.map(String.init)
            rest = rest[rest.index(after: close.lowerBound)...]
        }
        guard rest.hasPrefix(":") else { return nil }
        return (code, peer, String(rest.dropFirst().drop { $0 == " " }))
    }

    /// `unable to get local issuer certificate` from `server certificate rejected: unable to get
    /// local issuer certificate (X509 error 20)`: OpenSSL's reason, without what the words say already.
    static func certificateReason(_ detail: String) -> String {
        var text = Substring(detail)
        if text.hasPrefix("server certificate rejected: ") { text = text.dropFirst("server certificate rejected: ".count) }
        if text.hasSuffix(")"), let code = text.ranges(of: " (X509 error ").last { text = text[..<code.lowerBound] }
        return String(text)
    }

    /// `401 Unauthorized` from `credentials rejected: 401 Unauthorized`.
    private static func status(_ message: String) -> String {
        message.split(separator: ":", maxSplits: 1).last.map { String($0.drop { $0 == " " }) } ?? message
    }

    private static func lower(_ detail: String) -> String {
        // `connect(): Connection refused` → `connection refused`
        let last = detail.split(separator: ":").last.map { $0.drop { $0 == " " } } ?? Substring(detail)
        return last.prefix(1).lowercased() + last.dropFirst()
    }
}
