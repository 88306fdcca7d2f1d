#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// Single-key input on a terminal (pjsua- and baresip-style commands): canonical mode and echo
/// off, so each key arrives as it is typed and is not printed; signals (Ctrl-C) and output
/// processing stay as they were. The saved settings come back on every way out:
/// ``restore()`` (the tool's own ending), `atexit`, and a handler for the signals that would
/// otherwise end or stop the process with the terminal still raw (SIGQUIT, SIGABRT, SIGSEGV,
/// SIGBUS, SIGILL, SIGTRAP, SIGFPE: restore, then the default action; SIGTSTP: restore and
/// stop, and raw again on SIGCONT). SIGINT, SIGTERM and SIGHUP are the tool's graceful path,
/// which calls ``restore()``. One terminal per process.
public final class RawTerminal: Sendable {
    public let descriptor: Int32
    private let active = Mutex(true)

    /// Puts `descriptor` (standard input) in single-key mode; nil when it is not a terminal.
    public static func enter(_ descriptor: Int32 = 0) -> RawTerminal? {
        guard isatty(descriptor) == 1 else { return nil }
        var saved = termios()
        guard tcgetattr(descriptor, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        TerminalState.set(descriptor: descriptor, saved: saved, raw: raw)
        guard tcsetattr(descriptor, TCSANOW, &raw) == 0 else {
            TerminalState.clear()
            return nil
        }
        TerminalState.installHandlers()
        return RawTerminal(descriptor: descriptor)
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// The saved settings back (once; later calls do nothing).
    public func restore() {
        guard active.withLock({ was in defer { was = false }; return was }) else { return }
        TerminalState.restore()
        TerminalState.clear()
    }

    deinit { restore() }
}

/// The process-wide state the signal handlers read: plain globals (a handler may only touch
/// async-signal-safe things: `tcsetattr`, `signal`, `raise`).
enum TerminalState {
    nonisolated(unsafe) static var descriptor: Int32 = -1
    nonisolated(unsafe) static var saved = termios()
    nonisolated(unsafe) static var raw = termios()
    nonisolated(unsafe) static var installed = false

    static let fatalSignals: [Int32] = [SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE]

    static func set(descriptor: Int32, saved: termios, raw: termios) {
        self.saved = saved
        self.raw = raw
        self.descriptor = descriptor
    }

    static func clear() { descriptor = -1 }

    static func restore() {
        guard descriptor >= 0 else { return }
        _ = tcsetattr(descriptor, TCSANOW, &saved)
    }

    static func installHandlers() {
        guard !installed else { return }
        installed = true
        atexit { TerminalState.restore() }
        for number in fatalSignals {
            signal(number) { number in
                TerminalState.restore()
                signal(number, SIG_DFL)
                raise(number)
            }
        }
        signal(SIGTSTP) { _ in
            TerminalState.restore()
            signal(SIGTSTP, SIG_DFL)
            raise(SIGTSTP)
        }
        signal(SIGCONT) { _ in
            if TerminalState.descriptor >= 0 { _ = tcsetattr(TerminalState.descriptor, TCSANOW, &TerminalState.raw) }
            TerminalState.reinstallStop()
        }
    }

    static func reinstallStop() {
        signal(SIGTSTP) { _ in
            TerminalState.restore()
            signal(SIGTSTP, SIG_DFL)
            raise(SIGTSTP)
        }
    }
}
