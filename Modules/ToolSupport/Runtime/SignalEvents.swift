import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX signal a tool reacts to.
public struct ToolSignal: Hashable, Sendable, CustomStringConvertible {
    public let number: Int32
    public init(_ number: Int32) { self.number = number }

    /// SIGINT (Ctrl-C).
    public static let interrupt = ToolSignal(SIGINT)
    /// SIGTERM.
    public static let terminate = ToolSignal(SIGTERM)
    /// SIGHUP.
    public static let hangup = ToolSignal(SIGHUP)

    public var description: String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}

/// Signals as an `AsyncStream`, so a tool can hang up gracefully (unregister, BYE/CANCEL).
///
/// ```swift
/// let signals = await SignalEvents.stream()      // SIGINT + SIGTERM
/// Task { for await signal in signals { await session.hangUp(); break } }
/// ```
/// The default action of each signal is replaced by `SIG_IGN` before a `DispatchSource`
/// observes it; `stream` returns once every source is registered, so no later signal is lost.
/// When the stream ends the default action is restored, so a second Ctrl-C after the tool
/// stopped listening kills it as usual.
public enum SignalEvents {
    /// A stream of the given signals (default SIGINT and SIGTERM), yielding each delivery.
    public static func stream(_ signals: [ToolSignal] = [.interrupt, .terminate]) async -> AsyncStream<ToolSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: ToolSignal.self)
        let box = SourceBox()
        await withCheckedContinuation { (ready: CheckedContinuation<Void, Never>) in
            let pending = Mutex(signals.count)
            if signals.isEmpty { ready.resume() }
            for signalToWatch in signals {
                _ = signal(signalToWatch.number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalToWatch.number, queue: .global())
                source.setEventHandler { continuation.yield(signalToWatch) }
                source.setRegistrationHandler {
                    let remaining = pending.withLock { count in
                        count -= 1
                        return count
                    }
                    if remaining == 0 { ready.resume() }
                }
                box.sources.append(source)
                source.resume()
            }
        }
        continuation.onTermination = { _ in
            for source in box.sources { source.cancel() }
            for signalToRestore in signals { _ = signal(signalToRestore.number, SIG_DFL) }
        }
        return stream
    }
}

/// Keeps the dispatch sources alive for as long as the stream; only touched while building the
/// stream and once in `onTermination`.
private final class SourceBox: @unchecked Sendable {
    var sources: [any DispatchSourceSignal] = []
}
