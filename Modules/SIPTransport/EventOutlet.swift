import Synchronization

/// Where an actor's events go: its public `AsyncStream`, or — when its one reader asks with
/// ``redirect(to:)`` — straight to that reader's handler (a ``SerialInbox``'s `yield`), so the
/// reader needs no task parked on the stream for the actor's whole life.
///
/// Until the reader chooses (the first read of ``stream``, or ``redirect(to:)``), events wait
/// here and then go where it chose, first: nothing yielded between the producer's start and
/// the reader's choice is lost, and order is kept either way.
public final class EventOutlet<Element: Sendable>: Sendable {
    private enum Route {
        case undecided
        case stream
        case handler(@Sendable (Element) -> Void)
    }

    private struct State {
        var route = Route.undecided
        var waiting: [Element] = []
        var finished = false
    }

    private let events: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation
    private let state = Mutex(State())

    public init() {
        (events, continuation) = AsyncStream.makeStream(of: Element.self)
    }

    /// The events as a stream (for a reader that loops over them); what waited comes first.
    public var stream: AsyncStream<Element> {
        state.withLock { state in
            guard case .undecided = state.route else { return }
            state.route = .stream
            for element in state.waiting { continuation.yield(element) }
            state.waiting = []
            if state.finished { continuation.finish() }
        }
        return events
    }

    /// From now on every event goes to `handler`, called synchronously and in order from the
    /// producer (so it must only hand the event on, e.g. ``SerialInbox/yield(_:)``); what
    /// waited goes first. The stream then stays empty. Ignored when ``stream`` was read first.
    /// - Returns: false when ``stream`` was read first (events keep going there).
    @discardableResult
    public func redirect(to handler: @escaping @Sendable (Element) -> Void) -> Bool {
        state.withLock { state in
            guard case .undecided = state.route else { return false }
            state.route = .handler(handler)
            for element in state.waiting { handler(element) }
            state.waiting = []
            continuation.finish()
            return true
        }
    }

    /// Hands `element` on (or keeps it until the reader chooses); dropped after ``finish()``.
    public func yield(_ element: Element) {
        state.withLock { state in
            guard !state.finished else { return }
            switch state.route {
            case .undecided: state.waiting.append(element)
            case .stream: continuation.yield(element)
            case .handler(let handler): handler(element)
            }
        }
    }

    /// The last event was yielded: later ones are dropped, the stream ends after what it holds.
    public func finish() {
        state.withLock { state in
            state.finished = true
            if case .stream = state.route { continuation.finish() }
        }
    }
}
