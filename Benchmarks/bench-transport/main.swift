// bench-transport: SIP over every transport against a real Kamailio on loopback
// (scripts/kamailio.sh, own ports and run dir). Prints ONE JSON object on stdout:
//   - WSS throughput: OPTIONS transactions over one WSS connection, 64 in flight; each
//     completed transaction is 2 SIP messages (request + 200), both counted in msgs_per_s;
//   - per-transport OPTIONS round-trip latency (median, p99; 2000 round trips each, interleaved
//     across transports) and the added median latency of each transport vs UDP.
// Diagnostics go to stderr. The peer is Kamailio 5.6 (stateless 200 to OPTIONS), not in-process.
import Foundation
import SIPTransport

let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()
let base = UInt16.random(in: 20_000...59_000) / 4 * 4
let runDir = NSTemporaryDirectory() + "astra-kamailio-bench-\(base)"
let ports: [TransportKind: UInt16] = [.udp: base, .tcp: base, .tls: base + 1, .ws: base + 2, .wss: base + 3]

@discardableResult
func kamailio(_ command: String) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [root + "/scripts/kamailio.sh", command]
    var env = ProcessInfo.processInfo.environment
    env["KAMAILIO_SIP_PORT"] = String(base)
    env["KAMAILIO_TLS_PORT"] = String(base + 1)
    env["KAMAILIO_WS_PORT"] = String(base + 2)
    env["KAMAILIO_WSS_PORT"] = String(base + 3)
    env["KAMAILIO_RUN_DIR"] = runDir
    process.environment = env
    process.standardOutput = FileHandle.standardError
    try? process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

func options(_ transport: TransportKind, sentBy: String, seq: Int) -> [UInt8] {
    let port = ports[transport]!
    let branch = "z9hG4bK-bench-\(seq)"
    return Array(
        ("OPTIONS sip:127.0.0.1:\(port) SIP/2.0\r\n"
            + "Via: SIP/2.0/\(transport.viaToken) \(sentBy);branch=\(branch)\(transport == .udp ? ";rport" : "")\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:1001@127.0.0.1>;tag=bench\r\nTo: <sip:127.0.0.1:\(port)>\r\n"
            + "Call-ID: bench-\(base)-\(seq)\r\nCSeq: \(seq) OPTIONS\r\nContent-Length: 0\r\n\r\n").utf8)
}

/// One way to send a message and await the next response.
struct Client {
    let send: @Sendable ([UInt8]) async throws -> Void
    let responses: AsyncStream<ReceivedMessage>
    let sentBy: String
    let close: @Sendable () async -> Void
}

func client(_ transport: TransportKind) async throws -> Client {
    var opts = ConnectionOptions()
    opts.tls = TLSOptions(caFile: runDir + "/ca.crt")
    opts.keepAlive = nil
    opts.log = .standardError(minimum: .warning)
    let remote = SocketAddress(ip: "127.0.0.1", port: ports[transport]!)!
    if transport == .udp {
        let udp = try UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!)
        return Client(
            send: { try await udp.send($0, to: remote) }, responses: udp.events,
            sentBy: "127.0.0.1:\(udp.local.port)", close: { await udp.close() })
    }
    let connection = try await StreamConnection.open(
        host: "127.0.0.1", port: remote.port, transport: transport, options: opts)
    let (stream, sink) = AsyncStream.makeStream(of: ReceivedMessage.self)
    Task {
        for await event in connection.events {
            if case .message(let m) = event { sink.yield(m) }
        }
        sink.finish()
    }
    let sentBy = transport.isWebSocket ? "bench.invalid" : "127.0.0.1:\(connection.local?.port ?? 0)"
    return Client(
        send: { try await connection.send($0) }, responses: stream, sentBy: sentBy, close: { await connection.close() })
}

func micros(_ d: Duration) -> Double { Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12 }

/// Round trips per transport, interleaved (one per transport in turn) so machine load hits
/// every transport alike; returns (median, p99) in µs per transport.
func latencies(count: Int) async throws -> [TransportKind: (median: Double, p99: Double)] {
    var clients: [TransportKind: Client] = [:]
    var inboxes: [TransportKind: AsyncStream<ReceivedMessage>.Iterator] = [:]
    for transport in TransportKind.allCases {
        let c = try await client(transport)
        clients[transport] = c
        inboxes[transport] = c.responses.makeAsyncIterator()
    }
    var samples: [TransportKind: [Double]] = [:]
    for seq in 1...(count + 50) {
        for transport in TransportKind.allCases {
            let c = clients[transport]!
            let start = ContinuousClock.now
            try await c.send(options(transport, sentBy: c.sentBy, seq: seq))
            guard await inboxes[transport]!.next() != nil else { throw CancellationError() }
            if seq > 50 { samples[transport, default: []].append(micros(ContinuousClock.now - start)) }
        }
    }
    var out: [TransportKind: (median: Double, p99: Double)] = [:]
    for (transport, values) in samples {
        let sorted = values.sorted()
        out[transport] = (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
    }
    for c in clients.values { await c.close() }
    return out
}

func throughput(count: Int, window: Int) async throws -> Double {
    let c = try await client(.wss)
    var it = c.responses.makeAsyncIterator()
    let start = ContinuousClock.now
    var sent = 0
    var received = 0
    while sent < min(window, count) {
        sent += 1
        try await c.send(options(.wss, sentBy: c.sentBy, seq: sent))
    }
    while received < count {
        guard await it.next() != nil else { throw CancellationError() }
        received += 1
        if sent < count {
            sent += 1
            try await c.send(options(.wss, sentBy: c.sentBy, seq: sent))
        }
    }
    let seconds = micros(ContinuousClock.now - start) / 1e6
    await c.close()
    return Double(count) / seconds
}

guard kamailio("start") == 0 else {
    FileHandle.standardError.write("bench-transport: could not start Kamailio\n".data(using: .utf8)!)
    exit(1)
}
var result: [String: String] = [:]
do {
    let transactions = try await throughput(count: 20_000, window: 64)
    result["wss_throughput_transactions_per_s"] = String(Int(transactions))
    result["wss_throughput_msgs_per_s"] = String(Int(transactions * 2))
    let measured = try await latencies(count: 2000)
    var medians: [TransportKind: Double] = [:]
    for transport in TransportKind.allCases {
        let (median, p99) = measured[transport]!
        medians[transport] = median
        result["\(transport.rawValue)_rtt_median_us"] = String(format: "%.1f", median)
        result["\(transport.rawValue)_rtt_p99_us"] = String(format: "%.1f", p99)
    }
    for transport in TransportKind.allCases where transport != .udp {
        result["\(transport.rawValue)_added_latency_vs_udp_us"] = String(
            format: "%.1f", medians[transport]! - medians[.udp]!)
    }
} catch {
    FileHandle.standardError.write("bench-transport: \(error)\n".data(using: .utf8)!)
    kamailio("stop")
    exit(1)
}
kamailio("stop")
try? FileManager.default.removeItem(atPath: runDir)
// Context for the figures: the machine is shared (load average over 1 minute).
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init)
result["loadavg_1m"] = load ?? "null"
let numbers = result.keys.sorted().map { "\"\($0)\": \(result[$0]!)" }
print(
    "{\"bench\": \"transport\", \"peer\": \"kamailio-5.6 loopback (stateless 200 OK to OPTIONS)\", "
        + "\"wss_connections\": 1, \"wss_window\": 64, " + numbers.joined(separator: ", ") + "}")
