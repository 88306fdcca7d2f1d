import AstraTestSupport
import Testing

@Suite struct TestClockTests {
    @Test func sleeperWakesOnlyWhenTimeIsAdvancedPastItsDeadline() async throws {
        let clock = TestClock()
        let woke = Task { () -> TestClock.Instant in
            try await clock.sleep(until: clock.now.advanced(by: .milliseconds(500)), tolerance: nil)
            return clock.now
        }
        #expect(await clock.waitForSleepers(1))
        #expect(clock.advance(by: .milliseconds(499)) == 0)
        #expect(clock.sleeperCount == 1)
        #expect(clock.advance(by: .milliseconds(1)) == 1)
        let at = try await woke.value
        #expect(at.offset == .milliseconds(500))
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperThrowsAndRemovesIt() async {
        let clock = TestClock()
        let task = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(10)), tolerance: nil) }
        #expect(await clock.waitForSleepers(1))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func pastDeadlineReturnsAtOnce() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(1))
        try await clock.sleep(until: TestClock.Instant(offset: .zero), tolerance: nil)
        #expect(clock.now.offset == .seconds(1))
        #expect(clock.nextDeadline == nil)
    }
}
