import AstraTestSupport
import Synchronization
import Testing

@testable import SIPTransport

/// The monitor's shared line timers in virtual time: many lines' timers sleep on one task, fire
/// once each in deadline order when due, a restart replaces and a cancel drops a timer, and a
/// timer due sooner than the one the sleeper waits for still fires on time.
@Suite struct LineTimersTests {
    final class Fired: Sendable {
        let names = Mutex<[String]>([])
        func record(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test func manyTimersOneSleeperDeadlineOrder() async {
        let clock = TestClock()
        let timers = LineTimers(clock: clock)
        let fired = Fired()
        for line in 1...50 {
            let owner = timers.newOwner()
            timers.start(.init(owner: owner, slot: 0), after: .seconds(100 - line)) { fired.record("line-\(line)") }
        }
        #expect(await eventually { clock.sleeperCount == 1 }, "fifty timers, one sleeping task")
        #expect(clock.advance(by: .seconds(49)) == 0, "nothing is due before the earliest deadline")
        clock.advance(by: .seconds(1))
        #expect(await eventually { fired.all == ["line-50"] })
        clock.advance(by: .seconds(49))
        #expect(await eventually { fired.all.count == 50 })
        #expect(fired.all == (1...50).reversed().map { "line-\($0)" })
        #expect(timers.count == 0)
    }

    @Test func restartReplacesAndCancelDrops() async {
        let clock = TestClock()
        let timers = LineTimers(clock: clock)
        let fired = Fired()
        let owner = timers.newOwner()
        let ping = LineTimers<TestClock>.Key(owner: owner, slot: 0)
        let timeout = LineTimers<TestClock>.Key(owner: owner, slot: 1)
        timers.start(ping, after: .seconds(2)) { fired.record("first") }
        timers.start(ping, after: .seconds(3)) { fired.record("ping") }
        timers.start(timeout, after: .seconds(1)) { fired.record("timeout") }
        timers.cancel(timeout)
        #expect(timers.count == 1)
        clock.advance(by: .seconds(2))
        clock.advance(by: .seconds(1))
        #expect(await eventually { fired.all == ["ping"] })
        timers.start(ping, after: .seconds(1)) { fired.record("after-stop") }
        timers.cancelAll(of: owner)
        clock.advance(by: .seconds(5))
        let other = LineTimers<TestClock>.Key(owner: timers.newOwner(), slot: 0)
        timers.start(other, after: .seconds(1)) { fired.record("other") }
        clock.advance(by: .seconds(1))
        #expect(await eventually { fired.all == ["ping", "other"] }, "a cancelled line's timer never fires")
    }

    @Test func soonerTimerRearmsTheSleeper() async {
        let clock = TestClock()
        let timers = LineTimers(clock: clock)
        let fired = Fired()
        timers.start(.init(owner: timers.newOwner(), slot: 0), after: .seconds(30)) { fired.record("ping") }
        #expect(await eventually { clock.sleeperCount == 1 })
        timers.start(.init(owner: timers.newOwner(), slot: 1), after: .seconds(5)) { fired.record("timeout") }
        #expect(await eventually { clock.nextDeadline?.offset == .seconds(5) && clock.sleeperCount == 1 })
        clock.advance(by: .seconds(5))
        #expect(await eventually { fired.all == ["timeout"] })
        #expect(await eventually { clock.nextDeadline?.offset == .seconds(30) })
        clock.advance(by: .seconds(25))
        #expect(await eventually { fired.all == ["timeout", "ping"] })
    }
}
