import AstraJSON
import CLinux
import Glibc

/// The `stats` event: what was refused or dropped (``WakeGatewayServer/counters``), the state held
/// now (every per-call and per-user table, the APNs emulator's, open connections) and the
/// process's resident memory and heap in use — so a long run shows a leak as a growing number,
/// not a hope. RSS also counts freed pages malloc keeps for reuse; `heap_in_use_kb` (glibc
/// `mallinfo2`: bytes allocated, arenas and mmapped blocks) does not, and it does not depend on
/// the machine's load (docs/decisions.md D44).
extension WakeGatewayServer {
    public func statsEvent() async -> WakeEvent {
        var fields: [(String, JSONValue)] = [
            ("rss_kb", .int(Self.residentKB())), ("heap_in_use_kb", .int(Self.heapInUseKB())),
        ]
        for (key, value) in counters.sorted(by: { $0.key < $1.key }) { fields.append((key, .int(Int64(value)))) }
        for (key, value) in stateCounts.sorted(by: { $0.key < $1.key }) { fields.append(("held_" + key, .int(Int64(value)))) }
        for (key, value) in (await devices?.stateCounts ?? [:]).sorted(by: { $0.key < $1.key }) {
            fields.append(("apns_" + key, .int(Int64(value))))
        }
        // Out of descriptors, a listener pauses (10 ms doubling to 1 s): a few a second, never a spin.
        if let devices { fields.append(("apns_accept_failures", .int(Int64(devices.acceptFailures)))) }
        // One provider connection reused: connections opened (TLS handshakes) stay at 1 per host.
        let client = providers.stats
        fields.append(("provider_requests", .int(Int64(client.requests))))
        fields.append(("provider_failures", .int(Int64(client.failures))))
        fields.append(("provider_connections", .int(Int64(client.connections))))
        fields.append(("apns_tokens_minted", .int(Int64(await providers.apnsTokensMinted))))
        fields.append(("fcm_access_tokens", .int(Int64(await providers.fcmAccessTokensFetched))))
        for (key, value) in (await providerEmulator?.stats() ?? [:]).sorted(by: { $0.key < $1.key }) {
            fields.append(("emulator_" + key, .int(Int64(value))))
        }
        if let http {
            fields.append(("http_connections", .int(Int64(await http.openConnections))))
            fields.append(("http_accept_failures", .int(Int64(http.acceptFailures))))
            for (key, value) in await http.closedBy.sorted(by: { $0.key < $1.key }) {
                fields.append(("http_closed_" + key, .int(Int64(value))))
            }
        }
        return WakeEvent("stats", fields)
    }

    /// Heap in use by this process in KiB (glibc `mallinfo2`: `uordblks` + `hblkhd`).
    static func heapInUseKB() -> Int64 { Int64(astra_heap_in_use_bytes() / 1_024) }

    /// Resident set size of this process in KiB (`/proc/self/statm`, field 2 × page size).
    static func residentKB() -> Int64 {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return -1 }
        let fields = buffer[0..<n].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2, let pages = Int64(String(decoding: fields[1], as: UTF8.self)) else { return -1 }
        return pages * Int64(sysconf(Int32(_SC_PAGESIZE))) / 1_024
    }
}
