import SIPCore

/// One response the server sent: what the oracle looks at.
public struct TortureAnswer: Sendable, Hashable {
    public var status: Int
    public var reason: String
    public var callID: String?
    /// The `Unsupported` header field's value, when present (RFC 3261 §20.40).
    public var unsupported: String?

    public init(status: Int, reason: String = "", callID: String? = nil, unsupported: String? = nil) {
        self.status = status
        self.reason = reason
        self.callID = callID
        self.unsupported = unsupported
    }

    /// The answer a received response is; nil for a request (the server's own, e.g. an OPTIONS
    /// keep-alive, is not an answer to a torture message).
    public init?(_ message: SIPMessage) {
        guard let response = message.response else { return nil }
        let unsupported = response.headers.values(.unsupported)
        self.init(
            status: response.statusCode, reason: response.reasonPhrase, callID: response.headers.callID,
            unsupported: unsupported.isEmpty ? nil : unsupported.joined(separator: ", "))
    }

    /// A final response (RFC 3261 §7.2: 200 to 699).
    public var isFinal: Bool { status >= 200 }

    /// `420 Unsupported`: the header names the oracle looks for.
    func has(header: String) -> Bool {
        header.lowercased() == "unsupported" ? unsupported != nil : false
    }
}

/// What the server did with one torture message within the wait: its answers, and whether it
/// closed the connection (streams).
public struct TortureObservation: Sendable, Hashable {
    public var answers: [TortureAnswer] = []
    public var closed = false

    public init(answers: [TortureAnswer] = [], closed: Bool = false) {
        self.answers = answers
        self.closed = closed
    }

    /// A short stable form, the one a baseline keeps: the status codes in the order they came
    /// (each once), `+closed` when the server closed the connection; `none` for silence, e.g.
    /// `401`, `100,407`, `400+closed`, `closed`.
    public var outcome: String {
        var seen: [Int] = []
        for answer in answers where !seen.contains(answer.status) { seen.append(answer.status) }
        let codes = seen.map(String.init).joined(separator: ",")
        switch (codes.isEmpty, closed) {
        case (true, false): return "none"
        case (true, true): return "closed"
        case (false, false): return codes
        case (false, true): return codes + "+closed"
        }
    }
}
