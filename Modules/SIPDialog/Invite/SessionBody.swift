import SIPCore

/// A session description carried in an INVITE, a reliable response, an ACK, an UPDATE or an
/// INFO: opaque bytes plus their Content-Type. The media layer reads and writes SDP; the
/// signalling only moves it (RFC 3261 §13.2.1, RFC 3264).
public struct SessionBody: Sendable, Hashable {
    public var bytes: [UInt8]
    public var contentType: String

    public init(_ bytes: [UInt8], contentType: String = "application/sdp") {
        self.bytes = bytes
        self.contentType = contentType
    }

    /// A body from text (tests, INFO payloads such as `application/dtmf-relay`).
    public init(text: String, contentType: String = "application/sdp") {
        self.init(Array(text.utf8), contentType: contentType)
    }

    /// The body of a message, or nil when it has none.
    init?(body: ArraySlice<UInt8>, headers: SIPHeaders) {
        guard !body.isEmpty else { return nil }
        self.init(Array(body), contentType: headers.contentType ?? "application/sdp")
    }
}
