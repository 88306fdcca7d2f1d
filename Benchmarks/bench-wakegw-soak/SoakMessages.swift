import SIPCore

/// Request text for the soak's user agents (RFC 3261 §8.1.1), loopback UDP, no SDP.
enum SoakMessages {
    static func branch() -> String { "z9hG4bK-soak-" + KeyMaterial.token(length: 12) }
    static func tag() -> String { KeyMaterial.token(length: 8) }

    static func request(
        _ method: String, uri: String, from: String, fromTag: String, to: String, toTag: String? = nil,
        callID: String, cseq: Int, cseqMethod: String? = nil, port: UInt16, branch: String, routes: [String] = [],
        extra: [String] = [], contact: Bool = true
    ) -> [UInt8] {
        var lines = [
            "\(method) \(uri) SIP/2.0", "Via: SIP/2.0/UDP 127.0.0.1:\(port);branch=\(branch);rport",
            "Max-Forwards: 70", "From: <sip:\(from)@127.0.0.1>;tag=\(fromTag)",
            "To: <sip:\(to)@127.0.0.1>" + (toTag.map { ";tag=\($0)" } ?? ""), "Call-ID: \(callID)",
            "CSeq: \(cseq) \(cseqMethod ?? method)",
        ]
        for route in routes { lines.append("Route: \(route)") }
        if contact { lines.append("Contact: <sip:\(from)@127.0.0.1:\(port)>") }
        lines += extra
        lines.append("Content-Length: 0")
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// The Authorization / Proxy-Authorization lines answering `challenge` (a 401 or 407).
    static func authorization(_ challenge: SIPResponse, user: String, method: String, uri: String) -> [String] {
        var state = DigestClientState(credentials: DigestCredentials(username: user, password: "astra" + user))
        let kind: DigestChallengeKind = challenge.statusCode == 407 ? .proxy : .server
        let name: SIPHeaderName = challenge.statusCode == 407 ? "Proxy-Authenticate" : "WWW-Authenticate"
        guard case .retry = state.receive(challenges: challenge.headers.values(name), kind: kind),
            let fields = try? state.authorizationHeaders(method: method, uri: uri)
        else { return [] }
        return fields.map { "\($0.name): \($0.value)" }
    }
}
