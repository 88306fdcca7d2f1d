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
        /// The stream, made on its first read: a line monitor holds four outlets per line, and
        /// an `AsyncStream` nobody reads still costs its storage (about 0.9 KiB each).
        case stream(AsyncStream<Element>, AsyncStream<Element>.Continuation)
        case handler(@Sendable (Element) -> Void)
    }

    private struct State {
        var route = Route.undecided
        var waiting: [Element] = []
        var finished = false
    }

    private let state = Mutex(State())

    public init() {}

    /// The events as a stream (for a reader that loops over them); what waited comes first.
    /// Every read returns the same stream; after ``redirect(to:)`` it is an empty, finished one.
    public var stream: AsyncStream<Element> {
        state.withLock { state in
            switch state.route {
            case .stream(let events, _): return events
            case .handler: return AsyncStream { $0.finish() }
            case .undecided:
                let (events, continuation) = AsyncStream.makeStream(of: Element.self)
                state.route = .stream(events, continuation)
                for element in state.waiting { continuation.yield(element) }
                state.waiting = []
                if state.finished { continuation.finish() }
                return events
            }
        }
    }

    /// From now on every event goes to `handler`, called synchronously and in order from the
    /// producer (so it must only hand the event on, e.g. ``SerialInbox/yield(_:)``); what
    /// waited goes first. Ignored when ``stream`` was read first.
    /// - Returns: false when ``stream`` was read first (events keep going there).
    @discardableResult
    public func redirect(to handler: @escaping @Sendable (Element) -> Void) -> Bool {
        state.withLock { state in
            guard case .undecided = state.route else { return false }
            state.route = .handler(handler)
            for element in state.waiting { handler(element) }
            state.waiting = []
            return true
        }
    }

    /// Hands `element` on (or keeps it until the reader chooses); dropped after ``finish()``.
    public func yield(_ element: Element) {
        state.withLock { state in
            guard !state.finished else { return }
            switch state.route {
            case .undecided: state.waiting.append(element)
            case .stream(_, let continuation): continuation.yield(element)
            case .handler(let handler): handler(element)
            }
        }
    }

    /// The last event was yielded: later ones are dropped, the stream ends after what it holds.
    public func finish() {
        state.withLock { state in
            state.finished = true
            if case .stream(_, let continuation) = state.route { continuation.finish() }
        }
    }
}
