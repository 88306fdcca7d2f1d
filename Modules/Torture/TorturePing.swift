import SIPCore

/// The liveness check around every torture message: a plain, well-formed OPTIONS (RFC 3261
/// §11) to the server itself. Its answer, whatever the status, shows the server still
/// processes requests; its Call-ID tells it apart from the answers to the torture message.
public struct TorturePing: Sendable, Hashable {
    public var callID: String
    public var bytes: [UInt8]

    /// `target` is the server as a URI host and port (`127.0.0.1:5060`, `[::1]:5060`);
    /// `transport` the Via token (`UDP`, `TCP`, `TLS`, `WS`, `WSS`); `sentBy` this socket.
    public init(target: String, transport: String, sentBy: String, sequence: Int, ids: any IdentifierSource) {
        callID = "torture-ping-" + ids.token(length: 12)
        let host =
            sentBy.hasPrefix("[")
            ? String(sentBy[...(sentBy.firstIndex(of: "]") ?? sentBy.startIndex)])
            : String(sentBy.split(separator: ":").first ?? "")
        let text =
            "OPTIONS sip:\(target) SIP/2.0\r\n"
            + "Via: SIP/2.0/\(transport) \(sentBy);branch=\(ids.branch());rport\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:astra-torture@\(host)>;tag=\(ids.tag())\r\n"
            + "To: <sip:\(target)>\r\n"
            + "Call-ID: \(callID)\r\n"
            + "CSeq: \(sequence + 1) OPTIONS\r\n"
            + "Accept: application/sdp\r\n"
            + "Content-Length: 0\r\n\r\n"
        bytes = Array(text.utf8)
    }
}
