import AstraTestSupport
import Foundation
import Glibc
import SIPCore
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// A line held by `astra-register --keep` (registration only) answers the calls Kamailio
    /// relays to it: each INVITE gets 480 at once, and a long run leaks nothing (its server
    /// transactions end: RSS stays flat over 1,000 INVITEs).
    @Suite struct RegistrationOnlyKamailioTests {
        @Test func invitesToAKeptLineGet480FastAndLeaveItsMemoryFlat() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let line = try ToolProcess(
                "astra-register",
                ["--keep", "--password", "astra1061", "--server", "127.0.0.1:\(server.wssPort)", "--transport", "wss",
                 "--ca-file", server.caFile, "sip:1061@127.0.0.1"])
            #expect(await line.waitFor(.seconds(20)) { line.events("registered").count == 1 }, "\(line.stderr)")
            let caller = try InviteCaller(kamailioPort: server.sipPort, user: "1062", callee: "1061")

            // Warm-up: the first INVITEs, one at a time, each timed from send to the 480.
            let warmUp = try await caller.run(count: 200)
            #expect(warmUp.statuses == [480: 200], "\(warmUp.statuses)")
            let reason = try #require(warmUp.lastReject)
            #expect(reason.contains("registration-only"), "\(reason)")
            // Answered transactions end after Timer I (T4 = 5 s after the ACK, RFC 3261 §17.2.1).
            try await Task.sleep(for: .seconds(6))  // the point: Timer I ends the answered transactions
            let before = try #require(Self.rss(line.pid))
            let run = try await caller.run(count: 1_000)
            #expect(run.statuses == [480: 1_000], "\(run.statuses)")
            try await Task.sleep(for: .seconds(6))  // the point: Timer I ends the answered transactions
            let after = try #require(Self.rss(line.pid))
            let p50 = run.percentile(50), p99 = run.percentile(99), worst = run.latencies.max() ?? 0
            print("registration-only line: 1,000 INVITEs through Kamailio: 480 after p50 \(p50) ms, p99 \(p99) ms, "
                  + "max \(worst) ms; RSS \(before / 1024) KiB → \(after / 1024) KiB")
            #expect(warmUp.latencies.first! < 100, "first INVITE → 480: \(warmUp.latencies.first!) ms")
            #expect(p99 < 100, "p99 INVITE → 480: \(p99) ms")
            #expect(after - before < 4 << 20, "RSS grew \(before) → \(after) bytes over 1,000 INVITEs")

            line.signal(SIGINT)
            #expect(await line.exitStatus(within: .seconds(10)) == 0, "\(line.stderr)")
            #expect(line.events("result").first?.contains("\"unregistered\":true") == true)
        }

        /// Resident set size of `pid` in bytes (`VmRSS` of /proc/PID/status).
        static func rss(_ pid: pid_t) -> Int? {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
            else { return nil }
            return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
        }
    }
}

/// A SIP caller over UDP to Kamailio for the tests: sends INVITEs one at a time with digest
/// (answering Kamailio's 407, RFC 3261 §22.3), ACKs each final response (§17.1.1.3) and times
/// send → final on its own thread (blocking socket IO stays off the cooperative pool, D4).
final class InviteCaller: @unchecked Sendable {
    struct Run: Sendable {
        var statuses: [Int: Int] = [:]
        /// Send → final response, milliseconds, in order.
        var latencies: [Double] = []
        /// The last `Reason` header of a final response.
        var lastReject: String?

        func percentile(_ p: Double) -> Double {
            let sorted = latencies.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)]
        }
    }

    private let socket: UDPBatchSocket
    private let user: String
    private let callee: String
    private var auth: DigestClientState
    private var sequence = 0

    init(kamailioPort: UInt16, user: String, callee: String) throws {
        socket = try UDPBatchSocket(connectedTo: SocketAddress(ip: "127.0.0.1", port: kamailioPort)!)
        self.user = user
        self.callee = callee
        auth = DigestClientState(credentials: DigestCredentials(username: user, password: "astra" + user))
    }

    deinit { socket.close() }

    /// `count` calls, one after the other.
    func run(count: Int) async throws -> Run {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [self] in
                do { continuation.resume(returning: try self.calls(count)) } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private func calls(_ count: Int) throws -> Run {
        var run = Run()
        let clock = ContinuousClock()
        for _ in 0..<count {
            sequence += 1
            let callID = "reg-only-\(sequence)-\(UInt32.random(in: 0...UInt32.max))"
            var cseq = 1
            var sent = clock.now
            try send(invite(callID: callID, cseq: cseq))
            while true {
                guard let response = try nextResponse(callID: callID, cseq: cseq, within: .seconds(10)) else {
                    throw KamailioError(message: "no final response to INVITE \(callID)")
                }
                if response.statusCode < 200 { continue }
                let at = clock.now
                try send(ack(callID: callID, cseq: cseq, to: response))
                if response.statusCode == 407 && cseq < 3 {
                    // A new or stale nonce: answer it and send the INVITE again (CSeq + 1).
                    _ = auth.receive(challenges: response.headers.values(SIPHeaderName("Proxy-Authenticate")),
                                     kind: .proxy)
                    cseq += 1
                    sent = clock.now
                    try send(invite(callID: callID, cseq: cseq))
                    continue
                }
                run.statuses[response.statusCode, default: 0] += 1
                run.latencies.append(Double((at - sent).components.attoseconds) / 1e15
                                     + Double((at - sent).components.seconds) * 1000)
                run.lastReject = response.headers[SIPHeaderName("Reason")] ?? run.lastReject
                break
            }
        }
        return run
    }

    private var sentBy: String { "\(socket.local.ip):\(socket.local.port)" }
    private var target: String { "sip:\(callee)@127.0.0.1" }

    private func invite(callID: String, cseq: Int) throws -> [UInt8] {
        var text = "INVITE \(target) SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP \(sentBy);branch=z9hG4bK-\(callID)-\(cseq);rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:\(user)@127.0.0.1>;tag=\(callID)\r\nTo: <\(target)>\r\n"
            + "Call-ID: \(callID)\r\nCSeq: \(cseq) INVITE\r\nContact: <sip:\(user)@\(sentBy)>\r\n"
        if let credentials = try auth.authorizationHeaders(method: "INVITE", uri: target)
            .first
        {
            text += "\(credentials.name): \(credentials.value)\r\n"
        }
        return Array((text + "Content-Length: 0\r\n\r\n").utf8)
    }

    /// The ACK for a non-2xx final response: same branch and Request-URI, the response's To (§17.1.1.3).
    private func ack(callID: String, cseq: Int, to response: SIPResponse) -> [UInt8] {
        let text = "ACK \(target) SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP \(sentBy);branch=z9hG4bK-\(callID)-\(cseq);rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:\(user)@127.0.0.1>;tag=\(callID)\r\n"
            + "To: \(response.headers[.to] ?? "<\(target)>")\r\nCall-ID: \(callID)\r\nCSeq: \(cseq) ACK\r\n"
            + "Content-Length: 0\r\n\r\n"
        return Array(text.utf8)
    }

    private func send(_ bytes: [UInt8]) throws { try socket.send([bytes]) }

    /// Responses received but not yet asked for (a 100 and its 480 can arrive in one read).
    private var pending: [SIPResponse] = []

    /// The next response for (`callID`, `cseq`); retransmitted finals of earlier calls are skipped.
    private func nextResponse(callID: String, cseq: Int, within timeout: Duration) throws -> SIPResponse? {
        let deadline = ContinuousClock.now + timeout
        while true {
            pending.removeAll { $0.headers.callID != callID || (try? $0.headers.cseq())??.sequence != UInt32(cseq) }
            if !pending.isEmpty { return pending.removeFirst() }
            guard ContinuousClock.now < deadline else { return nil }
            guard socket.waitReadable(timeout: deadline - ContinuousClock.now) else { continue }
            _ = try socket.receiveAll { bytes in
                if case .response(let r)? = try? SIPMessage(parsing: Array(bytes)) { pending.append(r) }
            }
        }
    }
}
