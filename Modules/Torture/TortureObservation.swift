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

    /// The answer in raw received bytes, read as little as needed: the status line (RFC 3261
    /// §7.2), `Call-ID`/`i` and `Unsupported`. A server answering a torture message often
    /// echoes its odd headers (an overlarge CSeq, a From that is no name-addr), which a full
    /// parser refuses; the answer still counts. Nil for a request or for bytes that are not a
    /// status line.
    public init?(raw bytes: [UInt8]) {
        let prefix = Array("SIP/".utf8)
        guard bytes.starts(with: prefix) else { return nil }
        let lines = TortureAnswer.lines(bytes)
        guard let start = lines.first else { return nil }
        let parts = start.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[1].count == 3, let status = Int(parts[1]), status >= 100 else { return nil }
        var callID: String?
        var unsupported: [String] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: " \t").lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            if name == "call-id" || name == "i", callID == nil { callID = value }
            if name == "unsupported" { unsupported.append(value) }
        }
        self.init(
            status: status, reason: parts.count > 2 ? String(parts[2]) : "", callID: callID,
            unsupported: unsupported.isEmpty ? nil : unsupported.joined(separator: ", "))
    }

    /// The header section's lines, folds joined (RFC 3261 §7.3.1), decoded lossily.
    static func lines(_ bytes: [UInt8]) -> [String] {
        var out: [String] = []
        var line: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 13, i + 1 < bytes.count, bytes[i + 1] == 10 {
                if line.isEmpty { break }  // the empty line ends the header section
                if i + 2 < bytes.count, bytes[i + 2] == 0x20 || bytes[i + 2] == 0x09 {
                    line.append(0x20)
                    i += 3
                    continue
                }
                out.append(String(decoding: line, as: UTF8.self))
                line = []
                i += 2
                continue
            }
            line.append(bytes[i])
            i += 1
        }
        if !line.isEmpty { out.append(String(decoding: line, as: UTF8.self)) }
        return out
    }

    /// A final response (RFC 3261 §7.2: 200 to 699).
    public var isFinal: Bool { status >= 200 }

    /// `420` with `Unsupported`: the header names the oracle looks for.
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

extension StringProtocol {
    /// Without leading and trailing characters of `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        let scalars = Array(unicodeScalars)
        var start = 0
        var end = scalars.count
        while start < end, set.unicodeScalars.contains(scalars[start]) { start += 1 }
        while end > start, set.unicodeScalars.contains(scalars[end - 1]) { end -= 1 }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[start..<end])
        return String(out)
    }
}
