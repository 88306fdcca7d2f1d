import SIPCore

/// The one redactor (``Redaction``), on what reaches traces and logs: our own secret-carrying
/// lines (digest response, SDES keys, ICE password, push token, bearer token, JSON password, URI
/// password) surrounded by lines a peer controls. Byte 0 picks the secret line; the rest is split
/// at its first NUL into the text before and after it. Seeds: the redaction corpus of real traces
/// and the SIP vectors, around each secret line.
///
/// Invariants: the secret never survives redaction, whatever the peer's lines around it hold
/// (no state leaks from one line into the next); redacting twice changes nothing (documented);
/// `untrusted` text is one line without control characters, at most its limit plus the ellipsis.
enum RedactionTarget {
    /// A value of the shape every rule accepts (hex, base64, token characters).
    static let secret = "5ec7e7a1b2c3d4e5f60718293a4b5c6d"

    static let lines: [String] = [
        #"Authorization: Digest username="1001", realm="astra", nonce="abc", uri="sip:example.com", response="\#(secret)", algorithm=MD5"#,
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(secret)|2^31",
        "a=ice-pwd:\(secret)",
        "Contact: <sip:1001@192.0.2.1;transport=ws;pn-provider=apns;pn-prid=\(secret)>;expires=600",
        "Authorization: Bearer \(secret)",
        #"{"user":"1001","password":"\#(secret)","domain":"example.com"}"#,
        "To: <sip:1001:\(secret)@example.com>",
        "X-Diagnostic: password=\(secret)",
        "Proxy-Authorization: Digest username=\"1001\", response=\(secret)",
    ]

    static let target = FuzzTarget(
        name: "redaction",
        summary: "the one redactor: our secret lines among peer-controlled lines, idempotence, untrusted text",
        maxLength: 8192, dictionary: "sip",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let line = lines[Int(input.byte()) % lines.count]
        let rest = input.rest()
        let cut = rest.firstIndex(of: 0) ?? rest.count
        let before = String(decoding: rest[..<cut], as: UTF8.self)
        let after = cut < rest.count ? String(decoding: rest[(cut + 1)...], as: UTF8.self) : ""
        let text = before + "\r\n" + line + "\r\n" + after
        let redacted = Redaction.redact(text)
        invariant(!redacted.contains(secret), "a secret survived redaction after \(before.suffix(40).debugDescription)")
        invariant(Redaction.redact(redacted) == redacted, "redacting twice changed the text")
        let raw = Redaction.redact(bytes: rest)
        invariant(Redaction.redact(bytes: raw) == raw, "redacting bytes twice changed them")
        let shown = Redaction.untrusted(String(decoding: rest, as: UTF8.self), limit: 80)
        invariant(
            shown.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) },
            "untrusted text keeps a control character")
        invariant(shown.unicodeScalars.count <= 81, "untrusted text over its limit")
    }

    static func seeds() -> [[UInt8]] {
        let traces = SeedFiles.paths(in: "Tests/SIPCoreTests/Vectors/redaction")
            .filter { !$0.hasSuffix(".redacted") && !$0.hasSuffix(".json") }.map(SeedFiles.read)
        let messages = traces + SeedFiles.sipMessages()
        var seeds: [[UInt8]] = []
        for (i, message) in messages.prefix(48).enumerated() {
            let half = message.count / 2
            seeds.append([UInt8(i % lines.count)] + message[..<half].filter { $0 != 0 } + [0] + message[half...])
        }
        // Its own findings, as they were found (byte 0 picks the line).
        return seeds + SeedFiles.paths(in: "Tests/SIPCoreTests/Vectors/fuzz")
            .filter { $0.contains("/redaction-") }.map(SeedFiles.read)
    }
}
