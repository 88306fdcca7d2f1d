import PushKitEmu
import Synchronization

/// The user's client command as the emulator runs it: which process is current, the name it
/// announced, the settings of the running scenario, and the first fault (after which every
/// exchange fails at once — the run stops, nothing waits again).
///
/// Two lifetimes (docs/pushkit-emulator.md "Bring your own client"):
/// - ``Lifetime/perRun`` (virtual time: run, check, fuzz): one process for the whole command;
///   `reset` starts each scenario, `launched` tells it the app's memory is fresh.
/// - ``Lifetime/perLaunch`` (live mode): the process *is* the app's process. iOS starts it when
///   it launches the app (a push for a killed app) and kills it (SIGKILL) when the app dies, so a
///   killed app has no process at all.
public final class ClientSession: Sendable {
    /// How long the client process lives.
    public enum Lifetime: Sendable { case perRun, perLaunch }

    /// The shell command (`--client-cmd`).
    public let command: String
    /// Bound on each answer (wall clock).
    public let timeoutMs: Int64
    /// Process lifetime.
    public let lifetime: Lifetime
    private struct State {
        var process: ClientProcess?
        var name = "client"
        var scenario = ""
        var settings = EmulatorSettings()
        var fault: ClientFault?
    }
    private let state = Mutex(State())

    /// The default answer bound: a healthy client answers in microseconds; 5 s leaves room for a
    /// loaded machine and an interpreter's start-up.
    public static let defaultTimeoutMs: Int64 = 5_000

    /// Starts the client once and says hello: a command that cannot start or does not speak the
    /// protocol is an error here, before any scenario (the tool's exit 64). In `perLaunch` mode
    /// that first process is stopped again: the app is not running until iOS launches it.
    public init(command: String, timeoutMs: Int64 = defaultTimeoutMs, lifetime: Lifetime) throws(ClientFault) {
        self.command = command
        self.timeoutMs = timeoutMs
        self.lifetime = lifetime
        let (process, name) = try ClientProcess.start(command: command, mode: Self.mode(lifetime), timeoutMs: timeoutMs)
        state.withLock {
            $0.name = name
            if lifetime == .perRun { $0.process = process } else { process.kill() }
        }
    }

    deinit { state.withLock { $0.process?.kill() } }

    static func mode(_ lifetime: Lifetime) -> String { lifetime == .perRun ? "virtual" : "live" }

    /// The name the client announced.
    public var name: String { state.withLock { $0.name } }

    /// The current process's id (nil when none runs).
    public var pid: Int32? { state.withLock { $0.process?.pid } }

    /// The first fault, if any.
    public var fault: ClientFault? { state.withLock { $0.fault } }

    /// A new scenario: in `perRun` mode the running process is told to forget everything.
    func begin(scenario: String, settings: EmulatorSettings) {
        let (perRun, failed) = state.withLock { state in
            state.scenario = scenario
            state.settings = settings
            return (lifetime == .perRun, state.fault != nil)
        }
        guard perRun, !failed else { return }
        _ = reset(scenario: scenario, settings: settings)
    }

    /// Sends `reset` and checks its answer; a fault sticks.
    private func reset(scenario: String, settings: EmulatorSettings) -> ClientFault? {
        switch exchange(ClientBridge.resetLine(scenario: scenario, settings: settings), callback: "reset") {
        case .failure(let fault): return fault
        case .success(let answer):
            do throws(ClientFault) {
                try ClientBridge.readReset(answer)
                return nil
            } catch {
                exchangeFailed(error)
                return self.fault
            }
        }
    }

    /// `perLaunch`: iOS launches the app — a fresh process, hello, reset (any old one is killed).
    /// Returns a fault when it cannot start.
    func launch() -> ClientFault? {
        guard lifetime == .perLaunch else { return nil }
        let (old, scenario, settings) = state.withLock { state in
            let old = state.process
            state.process = nil
            return (old, state.scenario, state.settings)
        }
        old?.kill()
        if let fault = fault { return fault }
        do throws(ClientFault) {
            let (process, _) = try ClientProcess.start(
                command: command, mode: Self.mode(lifetime), timeoutMs: timeoutMs)
            state.withLock { $0.process = process }
        } catch {
            return record(error)
        }
        return reset(scenario: scenario, settings: settings)
    }

    /// `perLaunch`: the app's process ends (SIGKILL); `perRun`: nothing (the process stays for
    /// the next scenario).
    func processEnded() {
        guard lifetime == .perLaunch else { return }
        let old = state.withLock { state in
            let old = state.process
            state.process = nil
            return old
        }
        old?.kill()
    }

    /// Ends any running process (end of the command).
    public func close() {
        let old = state.withLock { state in
            let old = state.process
            state.process = nil
            return old
        }
        old?.kill()
    }

    /// One callback line out, one answer line back; the first fault sticks.
    func exchange(_ line: String, callback: String) -> Result<[UInt8], ClientFault> {
        let (process, fault) = state.withLock { ($0.process, $0.fault) }
        if let fault { return .failure(fault) }
        guard let process else {
            return .failure(record(ClientFault(.exited, "no client process is running to answer \(callback)")))
        }
        do throws(ClientFault) {
            return .success(try process.exchange(line, callback: callback, timeoutMs: timeoutMs))
        } catch {
            // Whatever went wrong, the process group goes: a child still holding the socket too.
            process.kill()
            return .failure(record(error))
        }
    }

    /// The answer came back but is not a valid one: the process is stopped, the fault sticks.
    func exchangeFailed(_ fault: ClientFault) {
        let process = state.withLock { $0.process }
        process?.kill()
        record(fault)
    }

    @discardableResult
    private func record(_ fault: ClientFault) -> ClientFault {
        state.withLock { state in
            if state.fault == nil { state.fault = fault }
            return state.fault!
        }
    }
}
