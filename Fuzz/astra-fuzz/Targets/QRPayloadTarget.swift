import Provisioning
import SIPCore

/// The text inside a QR code as astra-qr decode reads it (docs/provisioning.md "Accepted
/// payloads"): compact `astra1:` payloads, line JSON, `sip:` URIs and the legacy editor JSON,
/// sealed passwords left sealed (no key: ``SealedCodeTarget`` opens them). Seeds: payloads
/// our encoder writes for the seed lines, and the other accepted forms.
///
/// Invariants: a decoded line re-encodes to a compact payload that decodes to the same line
/// (and then to the same text); the line keeps the line model's own invariants (JSON round trip,
/// redaction).
enum QRPayloadTarget {
    static let target = FuzzTarget(
        name: "qr-payload",
        summary: "QR payload text: compact astra1:, line JSON, sip: URI, legacy editor JSON; compact round trip",
        maxLength: 4096, dictionary: "qr",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let (line, _) = try? ProvisioningPayload.line(from: text) else { return }
        let compact = CompactPayload.encode(line)
        let again = try? CompactPayload.decode(compact)
        invariant(again == line, "a decoded line does not survive compact encode → decode")
        invariant(again.map(CompactPayload.encode) == compact, "compact encoding is not stable")
        LineJSONTarget.checkLine(line)
    }

    static func seedLines() -> [Line] {
        LineJSONTarget.seeds().compactMap { try? Line(json: $0) }
    }

    static func seeds() -> [[UInt8]] {
        var texts = seedLines().map { CompactPayload.encode($0) }
        texts += [
            "astra1:n=Alice;u=1001;p=pw-Secret-42;d=example.com;s=pbx.example.com:8089;t=wss;w=/ws",
            "astra1:u=1001;d=example.com;t=wss;s=pbx.example.com:8089;x=future-key",
            "astra2:u=1001;d=example.com",
            "sip:1002@pbx.example.com", "sips:alice:pa%3Bss@[2001:db8::1]:5061;transport=tcp",
            #"{"username":"1001","password":"pw-legacy-1","domain":"example.com","host":"pbx.example.com","port":8089,"name":"Alice","transport":"wss"}"#,
            " \u{0}astra1:u=a;d=b\u{0}",
        ]
        return texts.map { Array($0.utf8) } + LineJSONTarget.seeds()
    }
}
