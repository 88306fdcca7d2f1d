/// Signals as an `AsyncStream`, so a tool can hang up gracefully (unregister, BYE/CANCEL).
///
/// ```swift
/// let signals = await SignalEvents.stream()      // SIGINT + SIGTERM
/// Task { for await signal in signals { await session.hangUp(); break } }
/// ```
/// Each signal is observed by one process-wide `DispatchSource`, created once (after
/// `signal(SIG, SIG_IGN)`, so nothing is lost while it registers) and never cancelled: libdispatch
/// installs its own handler only once per process. `stream` returns once the sources are
/// registered. Every live stream receives every delivery; when no stream is listening, the
/// signal gets its default action (a second Ctrl-C after the tool stopped listening kills it).
public enum SignalEvents {
    /// A stream of the given signals (default SIGINT and SIGTERM), yielding each delivery.
    public static func stream(_ signals: [ToolSignal] = [.interrupt, .terminate]) async -> AsyncStream<ToolSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: ToolSignal.self)
        let id = SignalHub.shared.subscribe(signals, continuation)
        continuation.onTermination = { _ in SignalHub.shared.unsubscribe(id) }
        for signalToWatch in signals { await SignalHub.shared.observe(signalToWatch) }
        return stream
    }
}
