import Testing

@testable import SIPTransport

@Suite("RFC 3263 / RFC 2782 SRV")
struct SRVTests {
    /// A DNS response for `_sips._tcp.example.com` with two SRV answers, the second target
    /// compressed against the first (RFC 1035 §4.1.4).
    static let response: [UInt8] = {
        func name(_ labels: [String]) -> [UInt8] { labels.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0] }
        var m: [UInt8] = [0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0]
        m += name(["_sips", "_tcp", "example", "com"]) + [0, 33, 0, 1]
        let target1 = name(["sip1", "example", "com"])
        m += [0xC0, 12, 0, 33, 0, 1, 0, 0, 0x0E, 0x10, 0, UInt8(6 + target1.count), 0, 10, 0, 60, 0x13, 0xC5] + target1
        // "sip2" + pointer to "example.com" inside the question name (offset 12 + 6 + 5 = 23).
        let target2: [UInt8] = [4] + Array("sip2".utf8) + [0xC0, 23]
        m += [0xC0, 12, 0, 33, 0, 1, 0, 0, 0x0E, 0x10, 0, UInt8(6 + target2.count), 0, 20, 0, 0, 0x13, 0xC6] + target2
        return m
    }()

    @Test("Answers are parsed, with name compression")
    func parse() {
        let records = Resolver.parseSRV(Self.response)
        #expect(
            records == [
                SRVRecord(priority: 10, weight: 60, port: 5061, target: "sip1.example.com"),
                SRVRecord(priority: 20, weight: 0, port: 5062, target: "sip2.example.com"),
            ])
        // Truncated or garbage input yields what could be read, never a trap.
        for cut in 0..<Self.response.count { _ = Resolver.parseSRV(Array(Self.response.prefix(cut))) }
        #expect(Resolver.parseSRV([0xFF, 0xFF, 0xFF]) == [])
    }

    @Test("RFC 2782 order: priority first, weight decides within a priority")
    func order() {
        let records = [
            SRVRecord(priority: 20, weight: 0, port: 1, target: "c"),
            SRVRecord(priority: 10, weight: 0, port: 1, target: "b0"),
            SRVRecord(priority: 10, weight: 100, port: 1, target: "a100"),
        ]
        var rng = SplitMix(seed: 4)
        var firsts: [String: Int] = [:]
        for _ in 0..<200 {
            let ordered = Resolver.order(records, using: &rng)
            #expect(ordered.last?.target == "c")
            firsts[ordered[0].target, default: 0] += 1
        }
        #expect(firsts["a100", default: 0] > 180)
        #expect(Resolver.srvName(for: .tls, domain: "example.com") == "_sips._tcp.example.com")
        #expect(Resolver.srvName(for: .wss, domain: "example.com") == nil)
    }
}
