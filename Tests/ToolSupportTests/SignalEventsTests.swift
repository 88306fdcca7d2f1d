import Testing
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SignalEventsTests {
    /// SIGUSR1/SIGUSR2 stand in for SIGINT/SIGTERM so a failure cannot kill the test runner.
    @Test(.timeLimit(.minutes(1)))
    func deliversRaisedSignalsAsAStream() async {
        let signals = await SignalEvents.stream([ToolSignal(SIGUSR1), ToolSignal(SIGUSR2)])
        var iterator = signals.makeAsyncIterator()
        // Process-directed (kill, not raise): Swift concurrency threads block signals.
        kill(getpid(), SIGUSR2)
        let first = await iterator.next()
        #expect(first == ToolSignal(SIGUSR2))
        kill(getpid(), SIGUSR1)
        let second = await iterator.next()
        #expect(second == ToolSignal(SIGUSR1))
    }

    @Test func describesCommonSignals() {
        #expect(ToolSignal.interrupt.description == "SIGINT")
        #expect(ToolSignal.terminate.description == "SIGTERM")
        #expect(ToolSignal.interrupt.number == SIGINT)
    }
}
