import SIPTransport

/// DNS answers to the SRV query of RFC 3263 §4.2 (RFC 1035 §4.1 message format, name
/// compression §4.1.4, RFC 2782 SRV), as the resolver parses what the name server sent.
/// Seeds: answers for `_sips._tcp` / `_sip._udp` with compressed and uncompressed targets.
///
/// Invariants: no trap on any message (compression loops, truncated records, label types);
/// every record's target is a dotted name or "." (RFC 2782: "." means no service).
enum DNSTarget {
    static let target = FuzzTarget(
        name: "dns-srv",
        summary: "DNS SRV answer parser: RFC 1035 message, name compression, RFC 2782 records",
        maxLength: 1500, seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        for record in Resolver.parseSRV(bytes) {
            invariant(!record.target.isEmpty, "SRV record with an empty target")
            _ = (record.priority, record.weight, record.port)
        }
    }

    static func seeds() -> [[UInt8]] {
        func name(_ labels: [String]) -> [UInt8] { labels.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0] }
        let question = name(["_sips", "_tcp", "example", "com"]) + [0, 33, 0, 1]
        var plain: [UInt8] = [0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0] + question
        for (priority, port, host) in [(10, 5061, "pbx1"), (20, 5061, "pbx2")] {
            let target = name([host, "example", "com"])
            plain += [0xC0, 12, 0, 33, 0, 1, 0, 0, 0x0E, 0x10, 0, UInt8(6 + target.count)]
            plain += [0, UInt8(priority), 0, 5, UInt8(port >> 8), UInt8(port & 0xFF)] + target
        }
        // A target compressed against the question's "example.com" (offset 12 + 6 + 5).
        var compressed: [UInt8] = [0x12, 0x35, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0] + question
        let target: [UInt8] = [3] + Array("pbx".utf8) + [0xC0, 23]
        compressed += [0xC0, 12, 0, 33, 0, 1, 0, 0, 0x0E, 0x10, 0, UInt8(6 + target.count)]
        compressed += [0, 10, 0, 5, 0x13, 0xC4] + target
        let noService: [UInt8] =
            [0x12, 0x36, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0] + question
            + [0xC0, 12, 0, 33, 0, 1, 0, 0, 0x0E, 0x10, 0, 7, 0, 0, 0, 0, 0, 0, 0]
        return [plain, compressed, noService]
    }
}
