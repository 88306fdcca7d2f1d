import AstraTestSupport
import Dispatch
import HTTPLite
import Testing

@testable import SIPTransport

/// API connections closed by the gateway's idle timeout, wave after wave (what the soak's idle
/// connections do every 30 s): the gateway's heap in use must not grow with the connections it
/// has closed (docs/decisions.md D44: ~164 B each were left behind when every connection had a
/// Dispatch queue of its own).
extension WakeGatewayResourceTests {
    /// 20 waves of 300 idle connections, each closed by a 100 ms idle timeout. `heap_in_use_kb`
    /// (glibc mallinfo2, from the gateway's own `stats` event once it holds no connection) around
    /// the last waves (median of 18–20) is within 192 KiB of where it was around the tenth
    /// (median of 9–11), 3,000 connections earlier. Measured in a debug build: ±20 KiB on the
    /// shared queues; ~500 KiB (~170 B a connection) with a Dispatch queue per connection, and
    /// 60–120 KiB with four queues of their own on the overcommit pool. The first waves warm up
    /// (~100 KiB). Heap, not RSS: it does not count pages malloc keeps, nor depend on the load.
    @Test func idleTimeoutWavesLeaveNoHeapBehind() async throws {
        let kamailio = try Kamailio()
        let gateway = try await Gateway.start(
            kamailio: kamailio.udp.local, ["--http-idle-timeout-ms", "100", "--stats-interval-s", "1"])
        let port = gateway.http
        /// One wave: `count` connections (blocking connects on a Dispatch thread, never on the
        /// cooperative pool), each waited on until the gateway closes it.
        func wave(_ count: Int) async -> Int {
            let opened: [TCPConnection] = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(
                        returning: (0..<count).compactMap { _ in try? TCPConnection.connect(host: "127.0.0.1", port: port) })
                }
            }
            var closedByGateway = 0
            for connection in opened {
                for await event in connection.events where event == .closed { closedByGateway += 1 }
                connection.close()
            }
            return closedByGateway
        }
        /// The heap of the first `stats` event after `seen` ones that shows no open connection.
        func heapWhenIdle(after seen: Int) async -> Int? {
            await eventuallySome(timeout: .seconds(20), every: .milliseconds(50)) { () -> Int? in
                let stats = gateway.process.events("stats")
                guard stats.count > seen, let last = stats.last,
                    CallToolHarness.field("http_connections", in: last) == "0"
                else { return nil }
                return CallToolHarness.field("heap_in_use_kb", in: last).flatMap { Int($0) }
            }
        }
        var heaps: [Int] = []
        for n in 0..<20 {
            #expect(await wave(300) == 300, "wave \(n)")
            let seen = gateway.process.events("stats").count
            heaps.append(try #require(await heapWhenIdle(after: seen), "no idle stats after wave \(n)"))
        }
        print("wakegw heap in use after each idle wave (KiB): \(heaps)")
        let last = gateway.process.events("stats").last ?? ""
        #expect(CallToolHarness.field("http_closed_idle_timeout", in: last).flatMap { Int($0) } ?? 0 >= 6_000, "\(last)")
        func median(_ values: ArraySlice<Int>) -> Int { values.sorted()[values.count / 2] }
        let growth = median(heaps[17...19]) - median(heaps[8...10])
        #expect(heaps[8] > 0 && growth <= 192, "heap grew \(growth) KiB over 3,000 connections: \(heaps)")
        await gateway.stop()
    }

    /// `--heap-trim-interval-s`: the gateway gives freed heap pages back on that period and says
    /// so in `stats` (`heap_trims` since the previous event, the longest in `heap_trim_max_us`);
    /// 0 turns it off. What it buys (RSS +0.5 MB instead of +6.9 MB over the 300 s soak) is a
    /// figure of `bench-wakegw-soak`, not of this test.
    @Test(arguments: [1, 0])
    func heapTrimsFollowTheirInterval(_ interval: Int) async throws {
        let kamailio = try Kamailio()
        let gateway = try await Gateway.start(
            kamailio: kamailio.udp.local, ["--heap-trim-interval-s", "\(interval)", "--stats-interval-s", "3"])
        func trims(_ stats: [String]) -> [Int] { stats.compactMap { CallToolHarness.field("heap_trims", in: $0).flatMap { Int($0) } } }
        let stats = await eventuallySome(timeout: .seconds(60), every: .milliseconds(100)) { () -> [String]? in
            let seen = gateway.process.events("stats")
            return seen.count >= 3 ? seen : nil
        }
        let counts = trims(try #require(stats, "fewer than 3 stats events in 60 s"))
        #expect(counts.count >= 3, "stats without heap_trims: \(stats ?? [])")
        if interval == 0 {
            #expect(counts.allSatisfy { $0 == 0 }, "trimmed with --heap-trim-interval-s 0: \(counts)")
        } else {
            // About 3 trims per 3 s interval; a busy machine may delay one past its stats event.
            #expect(counts.dropFirst().reduce(0, +) >= 2, "trims per stats interval: \(counts)")
            let longest = (stats ?? []).compactMap { CallToolHarness.field("heap_trim_max_us", in: $0).flatMap { Int($0) } }
            #expect(longest.allSatisfy { $0 >= 0 && $0 < 1_000_000 }, "heap_trim_max_us: \(longest)")
        }
        await gateway.stop()
    }
}
