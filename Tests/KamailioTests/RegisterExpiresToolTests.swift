import AstraTestSupport
import Foundation
import Glibc
import Testing

/// `astra-register --expires N` sends exactly `Expires: N`: a verification tool asks what it is
/// told, so the registrar's 423 Min-Expires and its granted expiry are what the user sees. Only
/// `--expires-policy MIN:MAX` clamps, and then says so (stderr and the result).
@Suite struct RegisterExpiresToolTests {
    /// A UDP registrar on 127.0.0.1 with the product's Kamailio policy (min_expires 30 answered
    /// with 423, max_expires 300 granted in the Contact): it records every Expires it is sent.
    final class UDPRegistrar: @unchecked Sendable {
        let fd: Int32
        let port: UInt16
        private let lock = NSLock()
        private var expires: [Int] = []
        private var running = true
        private var thread: Thread?

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard let bound = TestPorts.bindAnyLoopbackPort(fd) else {
                close(fd)
                throw POSIXError(.EADDRINUSE)
            }
            self.fd = fd
            port = bound
            var wait = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let thread = Thread { [unowned self] in self.serve() }
            self.thread = thread
            thread.start()
        }

        /// Every non-zero Expires the registrar was sent, in order.
        var seen: [Int] { lock.withLock { expires } }

        func stop() {
            lock.withLock { running = false }
            while thread?.isFinished == false { usleep(10_000) }
            close(fd)
        }

        private func serve() {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while lock.withLock({ running }) {
                var peer = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let count = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
                }
                guard count > 0, let text = String(bytes: buffer[0..<count], encoding: .utf8),
                      text.hasPrefix("REGISTER ") else { continue }
                let reply = Array(answer(text).utf8)
                _ = withUnsafePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, reply, reply.count, 0, $0, length) }
                }
            }
        }

        private func answer(_ request: String) -> String {
            let lines = request.components(separatedBy: "\r\n")
            func headers(_ name: String) -> [String] {
                lines.filter { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            }
            let asked = headers("Expires").first.flatMap { Int($0.dropFirst(8).trimmingCharacters(in: .whitespaces)) } ?? 3600
            if asked > 0 { lock.withLock { expires.append(asked) } }
            var reply = asked > 0 && asked < 30 ? ["SIP/2.0 423 Interval Too Brief"] : ["SIP/2.0 200 OK"]
            reply += headers("Via") + headers("From") + headers("Call-ID") + headers("CSeq")
            reply += headers("To").map { $0 + ";tag=registrar" }
            if asked > 0 && asked < 30 {
                reply.append("Min-Expires: 30")
            } else if asked > 0, let contact = headers("Contact").first {
                let bare = contact.replacingOccurrences(of: #";expires=\d+"#, with: "", options: .regularExpression)
                reply.append(bare + ";expires=\(min(asked, 300))")
            }
            reply += ["Content-Length: 0", "", ""]
            return reply.joined(separator: "\r\n")
        }
    }

    func register(_ registrar: UDPRegistrar, _ extra: [String]) async throws -> (Int32?, String, String) {
        try await ToolProcess.run(
            "astra-register",
            ["--server", "127.0.0.1:\(registrar.port)", "--json", "--timeout", "10"] + extra + ["sip:1001@127.0.0.1"])
    }

    @Test func expiresIsSentAsAskedAndTheRegistrarsAnswerIsSeen() async throws {
        let registrar = try UDPRegistrar()
        defer { registrar.stop() }
        // 3600: sent as asked, the registrar grants 300 and the result says both.
        var (status, out, err) = try await register(registrar, ["--expires", "3600"])
        #expect(status == 0, "\(err)")
        #expect(registrar.seen == [3600], "\(registrar.seen)")
        #expect(out.contains("\"expires\":300") && out.contains("\"expires_sent\":3600"), "\(out)")
        #expect(err.isEmpty, "\(err)")
        // 10: sent as asked, the 423 Min-Expires 30 is retried and shows in the result.
        (status, out, err) = try await register(registrar, ["--expires", "10"])
        #expect(status == 0, "\(err)")
        #expect(registrar.seen == [3600, 10, 30], "\(registrar.seen)")
        #expect(out.contains("\"event\":\"interval_too_brief\"") && out.contains("\"min_expires\":30"), "\(out)")
        // The default is the documented 3600 (docs/line.md).
        (status, _, err) = try await register(registrar, [])
        #expect(status == 0, "\(err)")
        #expect(registrar.seen.last == 3600, "\(registrar.seen)")
    }

    @Test func anExpiresPolicyClampsAndSaysSo() async throws {
        let registrar = try UDPRegistrar()
        defer { registrar.stop() }
        var (status, out, err) = try await register(registrar, ["--expires", "3600", "--expires-policy", "30:300"])
        #expect(status == 0, "\(err)")
        #expect(registrar.seen == [300], "\(registrar.seen)")
        #expect(out.contains("\"expires_requested\":3600") && out.contains("\"expires_sent\":300"), "\(out)")
        #expect(err.contains("clamped to 300 s by --expires-policy 30:300"), "\(err)")
        (status, out, err) = try await register(registrar, ["--expires", "10", "--expires-policy", "30:300"])
        #expect(status == 0, "\(err)")
        #expect(registrar.seen == [300, 30], "\(registrar.seen)")
        #expect(out.contains("\"expires_requested\":10") && out.contains("\"expires_sent\":30"), "\(out)")
        #expect(err.contains("clamped to 30 s"), "\(err)")
        (status, _, err) = try await register(registrar, ["--expires-policy", "300:30"])
        #expect(status == 64 && err.contains("--expires-policy"), "\(err)")
    }
}
