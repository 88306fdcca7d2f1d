/// One torture message and what its RFC says a server does with it: the oracle's row.
///
/// RFC 4475 (SIP torture test messages) and RFC 5118 (IPv6 torture messages) give each message
/// a section that says how a receiving element handles it. The row keeps that section, the
/// expected handling over a datagram transport and, where the RFC says otherwise for a stream
/// (RFC 4475 §3.1.2.2, §3.1.2.3, §3.3.9: a framing error ends the connection), over TCP, TLS, WS
/// and WSS; and which fields of the message may be changed before it is sent (``TortureEdit``).
public struct TortureCase: Sendable, Hashable, CustomStringConvertible {
    /// The RFC a message comes from.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        case rfc4475 = "RFC 4475"
        case rfc5118 = "RFC 5118"
    }

    /// The file name in the RFC's Appendix A archive, without `.dat` (`wsinv`, `ipv6-bad`).
    public let name: String
    public let source: Source
    /// The section that describes it, e.g. `3.1.1.1`.
    public let section: String
    public let title: String
    /// A response (`SIP/2.0 …`): nothing is sent back for it, and its Via is left alone (the
    /// top Via of a response names the element it goes to; claiming it would make a proxy
    /// forward the response to the next Via, outside the test).
    public let isResponse: Bool
    /// Over UDP.
    public let datagram: TortureExpectation
    /// Over TCP, TLS, WS and WSS.
    public let stream: TortureExpectation
    /// What the RFC text says, in a few words (shown with a mismatch).
    public let note: String

    public init(
        _ name: String, _ source: Source, _ section: String, _ title: String, isResponse: Bool = false,
        _ datagram: TortureExpectation, stream: TortureExpectation? = nil, note: String
    ) {
        self.name = name
        self.source = source
        self.section = section
        self.title = title
        self.isResponse = isResponse
        self.datagram = datagram
        self.stream = stream ?? datagram
        self.note = note
    }

    /// The expectation over a transport: `reliable` for TCP, TLS, WS and WSS.
    public func expectation(reliable: Bool) -> TortureExpectation { reliable ? stream : datagram }

    /// `RFC 4475 §3.1.1.1`.
    public var reference: String { "\(source.rawValue) §\(section)" }

    /// The fields that may change before sending: requests get their top Via sent-by (so the
    /// answer reaches this socket: RFC 3261 §18.2.2 sends it there) and their From tag (so a
    /// second run is a new request, not a merged one: RFC 3261 §8.2.2.2); responses nothing.
    public var edits: [TortureEdit] { isResponse ? [] : [.viaSentBy, .fromTag] }

    public var description: String { "\(name) (\(reference))" }
}

/// A declared change to a torture message; every one applied is reported (``TortureChange``).
public enum TortureEdit: String, Sendable, Hashable, CaseIterable {
    /// The sent-by (host and port) of the first Via value: this socket's address.
    case viaSentBy = "via-sent-by"
    /// The `tag` parameter of From: a per-run suffix appended.
    case fromTag = "from-tag"
}
