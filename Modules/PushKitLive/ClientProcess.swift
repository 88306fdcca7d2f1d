import Glibc
import PushKitEmu
import Synchronization

/// One running client process (`--client-cmd`): started with the project's launcher
/// (``ChildProcess``) through `/bin/sh -c CMD` (`exec CMD` for a plain command line, so the pid is
/// the client's own) in a process group of its own, its stdin and stdout one end of a Unix
/// socketpair, stderr inherited. Killing it kills the group: nothing the command started lives on. The emulator writes a callback line and waits — at most
/// `timeoutMs` of wall-clock time, virtual time stands still — for one answer line.
///
/// A socket rather than two pipes: `send(MSG_NOSIGNAL)` to a client that died is EPIPE, not a
/// SIGPIPE that would kill the emulator. Every failure is a ``ClientFault`` (never a hang, never
/// a crash): no answer in time, the process gone, a line longer than the protocol allows, a line
/// nobody asked for.
///
/// The process is watched, not only its socket: a client that exits while a child it started
/// still holds the socket never gives EOF, so the wait checks the process every
/// ``watchIntervalMs`` and reports it exited at once rather than "no answer" after the timeout.
final class ClientProcess: Sendable {
    let child: ChildProcess
    let fd: Int32
    let command: String
    private struct Reader {
        var buffer: [UInt8] = []
        /// The callback whose answer was read last (names the one a surplus line answered twice).
        var answered = ""
    }
    private let reader = Mutex(Reader())

    /// How often a wait for an answer checks whether the process is still alive.
    static let watchIntervalMs: Int32 = 20

    /// The client's process id.
    var pid: Int32 { child.pid }

    private init(child: ChildProcess, fd: Int32, command: String) {
        self.child = child
        self.fd = fd
        self.command = command
    }

    deinit { close(fd) }

    /// Starts `command` and says hello; returns the process and the name it announced.
    static func start(command: String, mode: String, timeoutMs: Int64) throws(ClientFault) -> (ClientProcess, String) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw ClientFault(.exited, "cannot start: socketpair: \(String(cString: strerror(errno)))")
        }
        let child: ChildProcess
        do {
            child = try ChildProcess(
                ["/bin/sh", "-c", shellLine(command)], environment: currentEnvironment(), stdio: .socket(fds[1]))
        } catch {
            close(fds[0])
            close(fds[1])
            throw ClientFault(.exited, "cannot start: \(error.description)")
        }
        close(fds[1])
        let process = ClientProcess(child: child, fd: fds[0], command: command)
        // A client that never answers hello (or answers wrongly) is killed with its process
        // group here: nothing else holds it, and a `sleep` it started would outlive the check.
        do throws(ClientFault) {
            let answer = try process.exchange(ClientBridge.helloLine(mode: mode), callback: "hello", timeoutMs: timeoutMs)
            return (process, try ClientBridge.readHello(answer))
        } catch {
            process.kill()
            throw error
        }
    }

    /// `exec CMD` when CMD is one plain command (no shell syntax), else CMD as it is.
    static func shellLine(_ command: String) -> String {
        let syntax = Set(";&|<>()`$\n\\{}*?[]#~=")
        return command.contains(where: { syntax.contains($0) }) ? command : "exec " + command
    }

    /// Sends `line`, then reads the answer line (without its newline). Anything the client wrote
    /// since its last answer is a line nobody asked for: a protocol error, before the send.
    func exchange(_ line: String, callback: String, timeoutMs: Int64) throws(ClientFault) -> [UInt8] {
        try checkNothingUnasked()
        try send(Array((line + "\n").utf8), callback: callback)
        let answer = try readLine(callback: callback, timeoutMs: timeoutMs)
        reader.withLock { $0.answered = callback }
        try checkNothingUnasked()
        return answer
    }

    /// Throws when the client has written more than the one line per callback (read without
    /// waiting: whatever has arrived). EOF here is left to the next exchange to report.
    func checkNothingUnasked() throws(ClientFault) {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, 0) > 0 && poller.revents & Int16(POLLIN) != 0 {
            var chunk = [UInt8](repeating: 0, count: 4_096)
            let n = read(fd, &chunk, chunk.count)
            if n > 0 { reader.withLock { $0.buffer += chunk.prefix(n) } }
        }
        let (surplus, answered) = reader.withLock { ($0.buffer, $0.answered) }
        guard !surplus.isEmpty else { return }
        let what = answered.isEmpty ? "a line before any callback" : "a second answer to \(answered)"
        throw ClientFault(
            .unsolicitedAnswer,
            "\(what), which nobody asked for (one line per callback): \(ClientWire.excerpt(surplus))")
    }

    private func send(_ bytes: [UInt8], callback: String) throws(ClientFault) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw exited(before: callback) }
            offset += n
        }
    }

    private func readLine(callback: String, timeoutMs: Int64) throws(ClientFault) -> [UInt8] {
        let deadline = ContinuousClock.now + .milliseconds(timeoutMs)
        var chunk = [UInt8](repeating: 0, count: 4_096)
        var exitSeen = false
        while true {
            if let line = reader.withLock({ Self.takeLine(&$0.buffer) }) {
                guard line.count <= ClientProtocol.maxLineBytes else { throw Self.tooLong(callback) }
                return line
            }
            if reader.withLock({ $0.buffer.count }) > ClientProtocol.maxLineBytes { throw Self.tooLong(callback) }
            // The process ended and what it wrote before has been read: it will not answer,
            // whoever else still holds the socket.
            if exitSeen { throw exited(before: callback) }
            let left = ContinuousClock.now.duration(to: deadline)
            let leftMs = max(0, left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000)
            if left <= .zero {
                throw ClientFault(.noAnswer, "no answer to \(callback) within \(timeoutMs) ms (pid \(pid))")
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, min(Int32(min(leftMs, 60_000)) + 1, Self.watchIntervalMs))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else {
                // Checked before the last read, so an answer written just before exiting still counts.
                exitSeen = child.exitStatus() != nil
                if exitSeen { drainWithoutWaiting(&chunk) }
                continue
            }
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw exited(before: callback) }
            reader.withLock { $0.buffer += chunk.prefix(n) }
        }
    }

    /// Reads whatever has arrived, without waiting.
    private func drainWithoutWaiting(_ chunk: inout [UInt8]) {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 0) > 0 && poller.revents & Int16(POLLIN) != 0 {
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { return }
            reader.withLock { $0.buffer += chunk.prefix(n) }
        }
    }

    /// The first complete line in `buffer`, removed from it.
    static func takeLine(_ buffer: inout [UInt8]) -> [UInt8]? {
        guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        var line = Array(buffer[..<newline])
        buffer.removeSubrange(...newline)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }

    static func tooLong(_ callback: String) -> ClientFault {
        ClientFault(.badAnswer, "answer to \(callback): line longer than \(ClientProtocol.maxLineBytes) bytes")
    }

    /// The fault for a client that closed its end: with its exit status when it has one (100 ms).
    private func exited(before callback: String) -> ClientFault {
        var status = child.exitStatus()
        for _ in 0..<20 where status == nil {
            usleep(5_000)
            status = child.exitStatus()
        }
        let how =
            status.map { $0 > 128 ? "was killed by signal \($0 - 128)" : "exited with status \($0)" }
            ?? "closed its stdout"
        return ClientFault(.exited, "pid \(pid) \(how) instead of answering \(callback)")
    }

    /// Ends the process at once (SIGKILL) and reaps it.
    func kill() { child.kill9() }
}
