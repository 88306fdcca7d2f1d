import CResolv
import Dispatch

/// One DNS SRV record (RFC 2782).
public struct SRVRecord: Sendable, Hashable {
    public var priority: UInt16
    public var weight: UInt16
    public var port: UInt16
    public var target: String

    public init(priority: UInt16, weight: UInt16, port: UInt16, target: String) {
        self.priority = priority
        self.weight = weight
        self.port = port
        self.target = target
    }
}

extension Resolver {
    /// RFC 3263 §4.1 service names: `_sip._udp`, `_sip._tcp`, `_sips._tcp`. WebSocket has no
    /// SRV service (RFC 7118 §7 uses NAPTR `SIP+D2W`, not supported here).
    public static func srvName(for transport: TransportKind, domain: String) -> String? {
        switch transport {
        case .udp: "_sip._udp.\(domain)"
        case .tcp: "_sip._tcp.\(domain)"
        case .tls: "_sips._tcp.\(domain)"
        case .ws, .wss: nil
        }
    }

    /// A line's server: with an explicit port, or a numeric host, A/AAAA only; a domain
    /// without a port is first looked up as SRV (RFC 3263 §4.2), targets in RFC 2782 order,
    /// falling back to A/AAAA on the transport's default port when there is no SRV record.
    public static func resolve(
        server host: String, port: UInt16?, transport: TransportKind
    ) async throws(TransportError) -> [SocketAddress] {
        if let port { return try await resolve(host: host, port: port, transport: transport) }
        if SocketAddress(ip: host, port: 0) == nil, let name = srvName(for: transport, domain: host) {
            var generator = SystemRandomNumberGenerator()
            let records = order(await lookupSRV(name), using: &generator)
            var out: [SocketAddress] = []
            for record in records where record.target != "." {
                if let addresses = try? await resolve(host: record.target, port: record.port, transport: transport) {
                    out += addresses.filter { !out.contains($0) }
                }
            }
            if !out.isEmpty { return out }
        }
        return try await resolve(host: host, port: transport.defaultPort, transport: transport)
    }

    /// SRV records for `name` through libresolv; empty when there are none or DNS fails.
    public static func lookupSRV(_ name: String) async -> [SRVRecord] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var answer = [UInt8](repeating: 0, count: 4096)
                let (classIN, typeSRV): (Int32, Int32) = (1, 33)  // RFC 1035 C_IN, RFC 2782 SRV
                let n = astra_res_query(name, classIN, typeSRV, &answer, Int32(answer.count))
                continuation.resume(returning: n > 0 ? parseSRV(Array(answer[0..<Int(min(n, 4096))])) : [])
            }
        }
    }

    /// RFC 2782 order: ascending priority; within a priority, weighted random selection.
    public static func order(_ records: [SRVRecord], using generator: inout some RandomNumberGenerator) -> [SRVRecord] {
        var out: [SRVRecord] = []
        for priority in Set(records.map(\.priority)).sorted() {
            var group = records.filter { $0.priority == priority }
            while !group.isEmpty {
                let total = group.reduce(0) { $0 + Int($1.weight) }
                var pick = total == 0 ? 0 : Int.random(in: 0...total, using: &generator)
                var index = 0
                for (i, record) in group.enumerated() {
                    pick -= Int(record.weight)
                    index = i
                    if pick <= 0 { break }
                }
                out.append(group.remove(at: index))
            }
        }
        return out
    }

    /// Parses the SRV answers of a DNS response (RFC 1035 §4.1, RFC 2782); never traps.
    /// (package: the fuzz target feeds it answers.)
    package static func parseSRV(_ message: [UInt8]) -> [SRVRecord] {
        guard message.count >= 12 else { return [] }
        let questions = Int(message[4]) << 8 | Int(message[5])
        let answers = Int(message[6]) << 8 | Int(message[7])
        var offset = 12
        for _ in 0..<questions {
            guard let end = skipName(message, offset) else { return [] }
            offset = end + 4
        }
        var records: [SRVRecord] = []
        for _ in 0..<answers {
            guard let end = skipName(message, offset), end + 10 <= message.count else { break }
            let type = Int(message[end]) << 8 | Int(message[end + 1])
            let length = Int(message[end + 8]) << 8 | Int(message[end + 9])
            let data = end + 10
            guard data + length <= message.count else { break }
            if type == 33, length >= 7, let target = readName(message, data + 6) {
                func u16(_ i: Int) -> UInt16 { UInt16(message[i]) << 8 | UInt16(message[i + 1]) }
                records.append(
                    SRVRecord(priority: u16(data), weight: u16(data + 2), port: u16(data + 4), target: target))
            }
            offset = data + length
        }
        return records
    }

    private static func skipName(_ m: [UInt8], _ start: Int) -> Int? {
        var i = start
        while i < m.count {
            let length = Int(m[i])
            if length == 0 { return i + 1 }
            if length & 0xC0 == 0xC0 { return i + 2 <= m.count ? i + 2 : nil }
            i += 1 + length
        }
        return nil
    }

    private static func readName(_ m: [UInt8], _ start: Int) -> String? {
        var labels: [String] = []
        var i = start
        var jumps = 0
        while i < m.count {
            let length = Int(m[i])
            if length == 0 { return labels.isEmpty ? "." : labels.joined(separator: ".") }
            if length & 0xC0 == 0xC0 {
                guard i + 1 < m.count, jumps < 16 else { return nil }
                i = (length & 0x3F) << 8 | Int(m[i + 1])
                jumps += 1
                continue
            }
            guard i + 1 + length <= m.count else { return nil }
            labels.append(String(decoding: m[(i + 1)..<(i + 1 + length)], as: UTF8.self))
            i += 1 + length
        }
        return nil
    }
}
