import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM for code that waits in `poll(2)` on its own thread instead of in async
/// code (there ``SignalEvents`` is the way): while it exists, the two signals write their number
/// to a pipe that ``wait(forReadable:timeout:)`` polls beside the caller's descriptor, so an
/// interrupt ends the wait at once and the caller can still report and clean up. The previous
/// handlers are put back by ``close()``.
public final class InterruptPipe {
    /// What ended a wait.
    public enum Wake: Equatable {
        case readable
        case timeout
        case interrupted(ToolSignal)
    }

    private let readFD: Int32
    private var previous: [(Int32, sigaction)] = []
    private var closed = false

    public init() {
        var fds: [Int32] = [-1, -1]
        // Close-on-exec and non-blocking from the start (no window for another thread's exec).
        if pipe2(&fds, O_CLOEXEC | O_NONBLOCK) != 0 { fds = [-1, -1] }
        readFD = fds[0]
        interruptWriteFD = fds[1]
        guard fds[1] >= 0 else { return }
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // Async-signal-safe: one write(2) of one byte.
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(interruptWriteFD, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            if sigaction(number, &action, &old) == 0 { previous.append((number, old)) }
        }
    }

    deinit { close() }

    /// Waits until `fd` is readable, a signal arrives, or `timeout` passes.
    public func wait(forReadable fd: Int32, timeout: Duration) -> Wake {
        var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)]
        let (seconds, attoseconds) = timeout.components
        // Round up: a timer must never be polled for too early (poll has millisecond resolution).
        let ms = Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        while true {
            let rc = poll(&entries, readFD >= 0 ? 2 : 1, max(0, ms))
            if rc < 0, errno == EINTR { continue }
            if rc <= 0 { return .timeout }
            if entries[1].revents & Int16(POLLIN) != 0 {
                var byte: UInt8 = 0
                _ = read(readFD, &byte, 1)
                return .interrupted(ToolSignal(Int32(byte)))
            }
            return .readable
        }
    }

    /// Restores the previous handlers and closes the pipe.
    public func close() {
        guard !closed else { return }
        closed = true
        for (number, old) in previous {
            var old = old
            sigaction(number, &old, nil)
        }
        if readFD >= 0 { Glibc.close(readFD) }
        if interruptWriteFD >= 0 { Glibc.close(interruptWriteFD) }
        interruptWriteFD = -1
    }
}

/// The pipe's write end, for the signal handler (which can capture nothing).
nonisolated(unsafe) private var interruptWriteFD: Int32 = -1
