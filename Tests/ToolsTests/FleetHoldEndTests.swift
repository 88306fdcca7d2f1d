import AstraTestSupport
import Foundation
import SIPCore
import Testing

/// The end of a fleet's hold when the registrar stops answering (`astra-register --fleet`,
/// decisions D41): a line whose refresh is still in flight waits for that refresh's final
/// response or timeout before it unregisters (RFC 3261 §10.2), and the run still ends. Before
/// this was fixed, such a line was met again and again inside one turn of the loop: the tool
/// never returned to its sockets, timers or signals and its memory grew without bound (seen as
/// 15 GB after 7 minutes of a 10,000-line fleet against an overloaded Kamailio).
@Suite struct FleetHoldEndTests {
    struct StubError: Error { let text: String }

    /// A registrar over TCP on 127.0.0.1 that grants `expires` seconds to the first REGISTER of
    /// each connection (200 OK, no challenge) and never answers another: every refresh and the
    /// unregistration stay in flight until the client gives up on them.
    final class MuteAfterFirstRegistrar: @unchecked Sendable {
        let port: UInt16
        private let listener: Int32
        private let expires: Int
        private let state = NSLock()
        private var registers = 0
        private var stopped = false

        init(expires: Int) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw StubError(text: "socket(): errno \(errno)") }
            guard let port = TestPorts.bindAnyLoopbackPort(fd), listen(fd, 16) == 0 else {
                close(fd)
                throw StubError(text: "bind/listen on 127.0.0.1:0: errno \(errno)")
            }
            listener = fd
            self.port = port
            self.expires = expires
            Thread.detachNewThread { [self] in acceptLoop() }
        }

        /// REGISTERs received so far (answered or not).
        var registerCount: Int { state.withLock { registers } }

        func stop() {
            state.withLock { stopped = true }
            shutdown(listener, Int32(SHUT_RDWR))
        }

        private func acceptLoop() {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if state.withLock({ stopped }) { break }
                    continue
                }
                Thread.detachNewThread { [self] in serve(client) }
            }
            close(listener)
        }

        private func serve(_ fd: Int32) {
            defer { close(fd) }
            var framer = SIPStreamFramer(role: .server)
            var answered = false
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while !state.withLock({ stopped }) {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { return }
                framer.append(buffer[0..<n])
                while let output = try? framer.next() {
                    guard case .message(.request(let request)) = output, request.method == .register else { continue }
                    state.withLock { registers += 1 }
                    guard !answered else { continue }
                    answered = true
                    var response = SIPResponse(to: request, statusCode: 200, toTag: "mute")
                    if let contact = request.headers[.contact] {
                        let granted = contact.replacingOccurrences(
                            of: #"expires=\d+"#, with: "expires=\(expires)", options: .regularExpression)
                        response.headers.add(.contact, granted)
                    }
                    response.headers.set(.expires, String(expires))
                    let bytes = response.serialized()
                    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                }
            }
        }
    }

    @Test func aRefreshInFlightAtTheEndOfTheHoldDelaysTheEndButDoesNotHangIt() async throws {
        guard let tool = BuiltTool(name: "astra-register").executable() else { return }
        let registrar = try MuteAfterFirstRegistrar(expires: 2)
        defer { registrar.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-hold-end-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = directory.appendingPathComponent("lines.jsonl")
        try (1...2).map {
            #"{"v":1,"user":"mute\#($0)","password":"pw\#($0)","domain":"127.0.0.1","server":"127.0.0.1:\#(registrar.port)","transport":"tcp"}"#
        }.joined(separator: "\n").write(to: lines, atomically: true, encoding: .utf8)
        // Granted 2 s, each line refreshes after 1 s; the refresh is never answered, so it is
        // still in flight when the 3 s hold ends, and fails after --timeout (4 s): the line's
        // flow is closed and the run ends, ~5 s in all.
        let run = try ChildProcess.start(
            tool, ["--load", lines.path, "--fleet", "--duration", "3", "--expires", "2", "--keep-alive", "30",
                   "--timeout", "4", "--json"])
        // The hang this guards against never ends: kill the tool after 90 s and say so.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(90))
            run.signal(SIGKILL)
            Issue.record("astra-register --fleet did not end within 90 s of a hold of 3 s")
        }
        defer { watchdog.cancel() }
        let result = try await run.result()
        #expect(result.status == 0, "\(result.stderr.suffix(400))")
        let summary = result.text.split(separator: "\n").first { $0.contains(#""event":"load_summary""#) }
        #expect(summary != nil, "no load_summary in \(result.text.suffix(400))")
        if let summary {
            #expect(summary.contains(#""registered":2"#), "\(summary)")
            #expect(summary.contains(#""refresh_failures":2"#), "\(summary)")
        }
        // Each line: its first REGISTER and the unanswered refresh; no unregistration is sent
        // on a line whose refresh failed (its flow is closed and its binding lapses).
        #expect(registrar.registerCount >= 4, "REGISTERs seen: \(registrar.registerCount)")
    }
}
