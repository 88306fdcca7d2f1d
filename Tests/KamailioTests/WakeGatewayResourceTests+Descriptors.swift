import AstraTestSupport
import Dispatch
import Foundation
import HTTPLite
import Testing

@testable import SIPTransport

/// Out of descriptors for real: the gateway runs under `prlimit --nofile` (its own process), the
/// test fills its table with API connections, and a phone's device connection then waits in the
/// backlog while every `accept()` fails with EMFILE.
extension WakeGatewayResourceTests {
    /// Descriptors the gateway may hold: what it opens at start (~40 in a debug build) plus room
    /// for a few dozen connections.
    static let descriptorLimit = 96

    /// The gateway keeps running; a full table with nobody waiting evicts no one; the API
    /// evicts its quietest connection for a client that waits; the device listener, with nothing
    /// to evict, backs off instead of spinning (a handful of failed accepts a second, little
    /// CPU) and, once descriptors are free again, accepts the waiting phone.
    @Test func listenerBacksOffWhenDescriptorsRunOut() async throws {
        let kamailio = try Kamailio()
        let gateway = try await Gateway.start(
            kamailio: kamailio.udp.local, ["--stats-interval-s", "0"], descriptorLimit: Self.descriptorLimit)
        let pid = gateway.process.pid

        // Idle API connections, one at a time (each accepted before the next, so the API never
        // hits the limit itself and evicts), until every descriptor the gateway may have is open —
        // counted from /proc, which costs the gateway none. Blocking connects run on a Dispatch
        // thread, never on the cooperative pool.
        let port = gateway.http
        func connect() async -> TCPConnection? {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: try? TCPConnection.connect(host: "127.0.0.1", port: port))
                }
            }
        }
        // Descriptor numbers below the limit in use (a new one takes the lowest free number, so the
        // table is full when all are; descriptors inherited above the limit do not count).
        func openDescriptors() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return names.compactMap { Int($0) }.filter { $0 < Self.descriptorLimit }.count
        }
        let atStart = openDescriptors()
        #expect(atStart < Self.descriptorLimit - 20, "the gateway opens \(atStart) descriptors at start")
        var idle: [TCPConnection] = []
        defer { for connection in idle { connection.close() } }
        while openDescriptors() < Self.descriptorLimit, idle.count < Self.descriptorLimit {
            let before = openDescriptors()
            guard let connection = await connect() else { break }
            idle.append(connection)
            #expect(await gateway.process.waitFor(.seconds(5)) { openDescriptors() > before }, "not accepted")
        }
        // The last accept took the last descriptor, and the listener's next `accept()` said EMFILE
        // with nobody waiting: no connection may be evicted for that.
        try await Task.sleep(for: .milliseconds(500))  // an eviction would show by now (not a protocol timer)
        #expect(openDescriptors() == Self.descriptorLimit, "the gateway holds \(openDescriptors()) descriptors")
        // Three more API clients: each waits in the backlog until the API evicts its quietest
        // connection for it (the owner's answer to descriptor pressure).
        for _ in 0..<3 { if let connection = await connect() { idle.append(connection) } }
        let overfilled = await gateway.process.waitFor(.seconds(10)) { openDescriptors() == Self.descriptorLimit }
        try await Task.sleep(for: .milliseconds(500))  // the last eviction's close lands (not a protocol timer)
        #expect(overfilled && openDescriptors() == Self.descriptorLimit)

        // A phone connects to the device port: its accept fails with EMFILE and the emulator has
        // no connection of its own to evict, so the listener stays in back-off.
        let token = String(repeating: "0d", count: 32)
        let device = try TCPConnection.connect(host: "127.0.0.1", port: gateway.apns)
        defer { device.close() }
        _ = await device.write(
            Array(#"{"token":"\#(token)","topic":"com.example.astra.voip","environment":"sandbox"}"#.utf8 + [10]))
        let cpuBefore = try Self.cpuMs(pid)
        let window = ContinuousClock.now
        try await Task.sleep(for: .seconds(4))  // the back-off observed for a while (not a protocol timer)
        let elapsed = window.duration(to: .now).components
        let elapsedMs = Double(elapsed.seconds) * 1_000 + Double(elapsed.attoseconds) / 1e15
        let cpuMs = try Self.cpuMs(pid) - cpuBefore
        #expect(gateway.process.events("device_connected").isEmpty, "accepted with no descriptor free?")
        #expect(openDescriptors() == Self.descriptorLimit)
        #expect(Double(cpuMs) < elapsedMs * 0.25, "\(cpuMs) ms CPU in \(elapsedMs) ms")
        var raw: Int32 = 0
        #expect(waitpid(pid, &raw, WNOHANG) == 0, "the gateway ended: \(gateway.process.stderr)")

        // Descriptors free again (ten API clients hang up): the waiting phone is accepted within
        // the longest pause (1 s) and the API answers a new request.
        for connection in idle.prefix(10) { connection.close() }
        idle.removeFirst(10)
        #expect(
            await gateway.process.waitFor(.seconds(10)) { !gateway.process.events("device_connected").isEmpty },
            "the phone was never accepted: \(gateway.process.stderr)")
        #expect(try await gateway.registerToken("1003", token: token, bearer: try gateway.adminBearer()) == 200)
        await gateway.stop()
        // The back-off doubles to 1 s: a handful of failed accepts in these seconds. A spinning
        // listener fails an accept per wake-up (hundreds of thousands a second) and burns a core.
        let stats = gateway.process.events("stats").last ?? ""
        let failures = CallToolHarness.field("apns_accept_failures", in: stats).flatMap { Int($0) } ?? -1
        let evicted = CallToolHarness.field("http_closed_descriptor_evicted", in: stats).flatMap { Int($0) } ?? -1
        print(
            "EMFILE back-off: \(failures) failed accepts in all, \(cpuMs) ms CPU in \(Int(elapsedMs)) ms of it "
                + "(\(atStart) descriptors at start, limit \(Self.descriptorLimit), \(idle.count + 10) API connections, "
                + "\(evicted) evicted by the API)")
        #expect(failures >= 1 && failures <= 20, "\(failures) failed accepts: \(stats)")
        #expect(
            evicted >= 3 && evicted <= 6, "the API evicted \(evicted) for the three clients past the limit: \(stats)")
    }

    /// User plus system CPU time of `pid` so far, in ms (/proc/PID/stat fields 14 and 15).
    static func cpuMs(_ pid: pid_t) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = text[text.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
        let ticks = (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        return ticks * 1_000 / sysconf(Int32(_SC_CLK_TCK))
    }
}
