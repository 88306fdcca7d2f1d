import Synchronization

/// The first of several results to arrive, handed to one continuation (the others are dropped).
final class FirstResult<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, Never>?, done: Bool)>((nil, false))

    func set(_ continuation: CheckedContinuation<T, Never>) { state.withLock { $0.continuation = continuation } }

    func resume(with value: T) {
        let continuation: CheckedContinuation<T, Never>? = state.withLock {
            guard !$0.done, let c = $0.continuation else { return nil }
            $0.done = true
            $0.continuation = nil
            return c
        }
        continuation?.resume(returning: value)
    }
}
