import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process-wide owner of the signal `DispatchSource`s behind ``SignalEvents``.
final class SignalHub: Sendable {
    static let shared = SignalHub()

    private struct Subscriber {
        var signals: Set<ToolSignal>
        var continuation: AsyncStream<ToolSignal>.Continuation
    }

    private struct Observer {
        var source: any DispatchSourceSignal
        var isRegistered = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct State {
        var nextID = 0
        var subscribers: [Int: Subscriber] = [:]
        var observers: [Int32: Observer] = [:]
    }

    private let state = Mutex(State())

    func subscribe(_ signals: [ToolSignal], _ continuation: AsyncStream<ToolSignal>.Continuation) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(signals: Set(signals), continuation: continuation)
            return state.nextID
        }
    }

    func unsubscribe(_ id: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }

    /// Returns once a registered source observes `signal`, creating it the first time.
    func observe(_ signal: ToolSignal) async {
        await withCheckedContinuation { (ready: CheckedContinuation<Void, Never>) in
            let registered: Bool = state.withLock { state in
                if let observer = state.observers[signal.number] {
                    if observer.isRegistered { return true }
                    state.observers[signal.number]?.waiters.append(ready)
                    return false
                }
                // Ignore first, so a delivery before the source is registered cannot kill us.
                _ = Glibc.signal(signal.number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signal.number, queue: .global())
                source.setEventHandler { [self] in deliver(signal) }
                source.setRegistrationHandler { [self] in markRegistered(signal) }
                state.observers[signal.number] = Observer(source: source, waiters: [ready])
                source.resume()
                return false
            }
            if registered { ready.resume() }
        }
    }

    private func markRegistered(_ signal: ToolSignal) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.observers[signal.number]?.isRegistered = true
            defer { state.observers[signal.number]?.waiters = [] }
            return state.observers[signal.number]?.waiters ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    private func deliver(_ signal: ToolSignal) {
        let listeners = state.withLock { state in
            state.subscribers.values.filter { $0.signals.contains(signal) }.map(\.continuation)
        }
        guard !listeners.isEmpty else {
            // Nobody listens: behave as if we had never handled the signal.
            _ = Glibc.signal(signal.number, SIG_DFL)
            kill(getpid(), signal.number)
            return
        }
        for listener in listeners { listener.yield(signal) }
    }
}
