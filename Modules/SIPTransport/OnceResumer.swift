import Synchronization

/// A continuation that may be resumed from two places (the awaited event, or its deadline),
/// resumed only by the first: a bounded wait without a second task per waiter.
final class OnceResumer: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, resumed: Bool)>((nil, false))

    /// Installs the continuation; resumes it at once if ``resume()`` already came.
    func set(_ continuation: CheckedContinuation<Void, Never>) {
        let now: Bool = state.withLock {
            if $0.resumed { return true }
            $0.continuation = continuation
            return false
        }
        if now { continuation.resume() }
    }

    func resume() {
        let continuation: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard !state.resumed else { return nil }
            state.resumed = true
            let waiting = state.continuation
            state.continuation = nil
            return waiting
        }
        continuation?.resume()
    }
}
