import SIPCore

/// Structure-aware SIP: the mutator keeps a message's start line / header lines / body shape
/// and mutates header *values* (and which headers are present, their order, names and the
/// Content-Length), so nearly every input reaches the typed-header parsers and digest parsers
/// instead of dying in the framing. Seeds: the SIP vectors plus the digest vectors as messages.
///
/// Invariants: every typed value (Via, From, To, Route, Record-Route, Contact, CSeq, Request-URI)
/// re-serialized reads back as itself; a URI is equivalent to itself (RFC 3261 §19.1.4); a
/// parsed Authorization re-renders and re-parses to the same value, and the redacted form never
/// holds its response (RFC 7616 §3.4, the project's secrets rule).
enum SIPHeaderValueTarget {
    static let target = FuzzTarget(
        name: "sip-headers",
        summary: "SIP header values mutated in place: typed headers and digest round trips (RFC 3261 §20, RFC 7616)",
        maxLength: 8192, dictionary: "sip",
        seeds: { SeedFiles.sipMessages() + digestMessages() },
        run: run, mutate: mutate)

    static func run(_ bytes: [UInt8]) {
        guard let message = try? SIPMessage(parsing: bytes) else { return }
        SIPTypedHeaders.exercise(message)
        SIPTypedHeaders.checkRoundTrips(message)
        let h = message.headers
        for name in [SIPHeaderName.wwwAuthenticate, .proxyAuthenticate] {
            let values = h.values(name)
            guard !values.isEmpty, let challenges = try? DigestChallenge.parseAll(values) else { continue }
            for c in challenges { _ = (c.chooseQoP(hasBody: true), c.chooseQoP(hasBody: false, preferAuthInt: true)) }
            _ = DigestChallenge.strongest(challenges)
        }
        for name in [SIPHeaderName.authorization, .proxyAuthorization] {
            for value in h.values(name) { checkAuthorization(value) }
        }
    }

    static func checkAuthorization(_ value: String) {
        guard let auth = try? DigestAuthorization(parsing: value) else { return }
        let again = try? DigestAuthorization(parsing: auth.headerValue)
        invariant(again == auth, "Authorization \(auth.headerValue) does not read back as itself")
        _ = auth.verify(password: "fuzz", method: "REGISTER")
        if auth.response.count >= 8 {
            invariant(!auth.redacted.contains(auth.response), "redacted Authorization shows the response")
            invariant(!"\(auth)".contains(auth.response), "Authorization's description shows the response")
        }
    }

    /// The digest vectors' challenge and authorization header lines, each in a message.
    static func digestMessages() -> [[UInt8]] {
        let vectors = SeedFiles.json("Tests/SIPCoreTests/Vectors/digest_vectors.json")
        let lines = SeedFiles.strings(in: vectors).filter { $0.contains(": Digest ") }
        return lines.map { line in
            let head =
                line.hasPrefix("WWW-") || line.hasPrefix("Proxy-Authenticate")
                ? "SIP/2.0 401 Unauthorized\r\nVia: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKfuzz\r\n"
                : "REGISTER sip:example.com SIP/2.0\r\nVia: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKfuzz\r\nMax-Forwards: 70\r\n"
            let message =
                head + "From: <sip:a@example.com>;tag=1\r\nTo: <sip:a@example.com>\r\nCall-ID: fuzz\r\n"
                + "CSeq: 2 REGISTER\r\nContact: <sip:a@192.0.2.1>;expires=60\r\n\(line)\r\nContent-Length: 0\r\n\r\n"
            return Array(message.utf8)
        }
    }

    // MARK: Mutation

    /// Header names the mutator inserts or renames to (long and compact forms).
    static let names = [
        "Via", "v", "From", "f", "To", "t", "Call-ID", "i", "CSeq", "Contact", "m", "Route", "Record-Route",
        "Max-Forwards", "Content-Length", "l", "Expires", "Min-Expires", "Allow", "Supported", "k", "Require",
        "WWW-Authenticate", "Proxy-Authenticate", "Authorization", "Proxy-Authorization", "Path", "Content-Type", "c",
    ].map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], maxSize: Int, seed: UInt32) -> [UInt8] {
        guard var message = RawSIPMessage(input), !message.headers.isEmpty else {
            return FuzzDriver.mutateBytes(input)
        }
        let random = SeededIdentifierSource(seed: UInt64(seed))
        func pick(_ n: Int) -> Int { n <= 1 ? 0 : Int(random.nextUInt64() % UInt64(n)) }
        let i = pick(message.headers.count)
        switch pick(14) {
        case 0...5:
            message.headers[i].value = FuzzDriver.mutateBytes(message.headers[i].value)
        case 6:
            message.headers.insert(message.headers[i], at: pick(message.headers.count + 1))
        case 7:
            message.headers.remove(at: i)
        case 8:
            message.headers.swapAt(i, pick(message.headers.count))
        case 9:
            let value = message.headers[pick(message.headers.count)].value
            message.headers.insert((names[pick(names.count)], value), at: pick(message.headers.count + 1))
        case 10:
            message.headers[i].value = message.headers[pick(message.headers.count)].value
        case 11:
            message.headers[i].name = names[pick(names.count)]
        case 12:
            message.startLine = FuzzDriver.mutateBytes(message.startLine)
        default:
            message.body = FuzzDriver.mutateBytes(message.body)
        }
        return message.serialized(fixContentLength: pick(8) != 0)
    }
}

/// A SIP message split into start line, header lines (continuations joined) and body, for the
/// structure-aware mutator. Any bytes with an empty line after a first line split this way.
struct RawSIPMessage {
    var startLine: [UInt8]
    var headers: [(name: [UInt8], value: [UInt8])]
    var body: [UInt8]

    init?(_ bytes: [UInt8]) {
        let end: Int
        let separatorLength: Int
        if let crlf = SeedFiles.find([13, 10, 13, 10], in: bytes) {
            (end, separatorLength) = (crlf, 4)
        } else if let lf = SeedFiles.find([10, 10], in: bytes) {
            (end, separatorLength) = (lf, 2)
        } else {
            return nil
        }
        var lines = bytes[0..<end].split(separator: 10, omittingEmptySubsequences: false).map { line in
            Array(line.last == 13 ? line.dropLast() : line)
        }
        guard !lines.isEmpty else { return nil }
        startLine = lines.removeFirst()
        headers = []
        for line in lines {
            if let first = line.first, first == 32 || first == 9, !headers.isEmpty {
                headers[headers.count - 1].value += [32] + line.drop { $0 == 32 || $0 == 9 }
            } else if let colon = line.firstIndex(of: 58) {
                var value = line[(colon + 1)...]
                while value.first == 32 || value.first == 9 { value = value.dropFirst() }
                headers.append((Array(line[..<colon]), Array(value)))
            } else {
                headers.append((line, []))
            }
        }
        body = Array(bytes[(end + separatorLength)...])
    }

    /// CRLF everywhere; Content-Length (long or compact) set to the body's size when asked.
    func serialized(fixContentLength: Bool) -> [UInt8] {
        var out = startLine + [13, 10]
        for (name, value) in headers {
            let lower = name.map { $0 | 0x20 }
            let isLength = lower == Array("content-length".utf8) || lower == [UInt8(ascii: "l")]
            out += name + [58, 32] + (fixContentLength && isLength ? Array(String(body.count).utf8) : value)
            out += [13, 10]
        }
        return out + [13, 10] + body
    }
}
