import Testing
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// SIGUSR1/SIGUSR2 stand in for SIGINT/SIGTERM. Signals are sent with `kill` (process-directed):
/// Swift concurrency threads block signals, so `raise` from a test would never be delivered.
/// Serialized, and a signal is only sent while a stream listens (otherwise its default action,
/// terminate, would apply to the test runner).
@Suite(.serialized) struct SignalEventsTests {
    @Test(.timeLimit(.minutes(1)))
    func deliversSignalsAsAStream() async {
        let signals = await SignalEvents.stream([ToolSignal(SIGUSR1), ToolSignal(SIGUSR2)])
        var iterator = signals.makeAsyncIterator()
        kill(getpid(), SIGUSR2)
        #expect(await iterator.next() == ToolSignal(SIGUSR2))
        kill(getpid(), SIGUSR1)
        #expect(await iterator.next() == ToolSignal(SIGUSR1))
    }

    @Test(.timeLimit(.minutes(1)))
    func aLaterStreamStillReceivesSignals() async {
        for _ in 0..<3 {
            let signals = await SignalEvents.stream([ToolSignal(SIGUSR1)])
            var iterator = signals.makeAsyncIterator()
            kill(getpid(), SIGUSR1)
            #expect(await iterator.next() == ToolSignal(SIGUSR1))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func everyLiveStreamReceivesEachSignal() async {
        let first = await SignalEvents.stream([ToolSignal(SIGUSR1)])
        let second = await SignalEvents.stream([ToolSignal(SIGUSR1)])
        var a = first.makeAsyncIterator()
        var b = second.makeAsyncIterator()
        kill(getpid(), SIGUSR1)
        #expect(await a.next() == ToolSignal(SIGUSR1))
        #expect(await b.next() == ToolSignal(SIGUSR1))
    }

    @Test func describesCommonSignals() {
        #expect(ToolSignal.interrupt.description == "SIGINT")
        #expect(ToolSignal.terminate.description == "SIGTERM")
        #expect(ToolSignal.interrupt.number == SIGINT)
    }
}
