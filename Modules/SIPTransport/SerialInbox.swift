import Synchronization

/// An ordered mailbox that runs a task only while it holds work.
///
/// A `for await` loop over an `AsyncStream` keeps one task parked for the whole life of what it
/// reads, and a parked task keeps the slabs its deepest call needed (2–3.5 KiB for a pump whose
/// handler goes down into TLS, framing or a transaction). A process holding a thousand lines,
/// each with a connection, a flow, an endpoint and a registration, parked thousands of them.
/// Here ``yield(_:)`` appends under a lock and, when no drain runs, starts one task that hands
/// the elements to the handler one at a time, in order (the next only after the handler
/// returned, as the loop did), and ends when the mailbox is empty.
///
/// Elements yielded before ``start(_:)`` wait for it. After ``finish()`` new elements are
/// dropped and those already in the mailbox are still handled, as an `AsyncStream`'s are.
public final class SerialInbox<Element: Sendable>: Sendable {
    public typealias Handler = @Sendable (Element) async -> Void

    private struct State {
        var queue: [Element] = []
        var head = 0
        var handler: Handler?
        var draining = false
        var finished = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Installs the handler (once; a second call is ignored) and starts handling what waits.
    public func start(_ handler: @escaping Handler) {
        let run = state.withLock { state -> Handler? in
            guard state.handler == nil else { return nil }
            state.handler = handler
            return claimDrain(&state)
        }
        if let run { launch(run) }
    }

    /// Appends `element`; handled after every element yielded before it. Dropped after ``finish()``.
    public func yield(_ element: Element) {
        let run = state.withLock { state -> Handler? in
            guard !state.finished else { return nil }
            state.queue.append(element)
            return claimDrain(&state)
        }
        if let run { launch(run) }
    }

    /// No element is accepted any more; those in the mailbox are still handled.
    public func finish() {
        state.withLock { $0.finished = true }
    }

    /// Drops what waits and every later element (the owner is gone or closed).
    public func discard() {
        state.withLock { state in
            state.finished = true
            state.queue = []
            state.head = 0
        }
    }

    /// The handler when a drain must start now (there is work, a handler and no drain yet).
    private func claimDrain(_ state: inout State) -> Handler? {
        guard !state.draining, let handler = state.handler, state.head < state.queue.count else { return nil }
        state.draining = true
        return handler
    }

    private func launch(_ handler: @escaping Handler) {
        Task { await self.drain(handler) }
    }

    private func drain(_ handler: Handler) async {
        while let element = next() {
            await handler(element)
        }
    }

    /// The oldest element, or nil (and the drain ends) when the mailbox is empty; an empty
    /// mailbox gives its storage back.
    private func next() -> Element? {
        state.withLock { state -> Element? in
            guard state.head < state.queue.count else {
                state.draining = false
                state.queue = []
                state.head = 0
                return nil
            }
            let element = state.queue[state.head]
            state.head += 1
            if state.head >= 32 && state.head * 2 >= state.queue.count {
                state.queue.removeFirst(state.head)
                state.head = 0
            }
            return element
        }
    }
}
