import Testing
@testable import SIPDialog

/// The endpoint's timer queue (one heap, one sleeping task per endpoint), as a pure value.
struct TimerQueueTests {
    func id(_ branch: String, _ timer: TransactionTimer, side: TimerID.Side = .client) -> TimerID {
        TimerID(side: side, key: TransactionKey(branch: branch, sentBy: "h:5060", method: "REGISTER"), timer: timer)
    }

    @Test func firesInDeadlineOrderAndSkipsCancelledTimers() {
        var queue = TimerQueue()
        queue.schedule(id("a", .E), at: .milliseconds(500))
        queue.schedule(id("a", .F), at: .seconds(32))
        queue.schedule(id("b", .E), at: .milliseconds(300))
        queue.schedule(id("c", .K), at: .seconds(5))
        var next = queue.nextDeadline()
        #expect(next == .milliseconds(300))
        var cancelled = queue.cancel(id("b", .E))
        #expect(cancelled)
        cancelled = queue.cancel(id("b", .E))
        #expect(!cancelled)
        next = queue.nextDeadline()
        #expect(next == .milliseconds(500))
        let all = queue.lastSequence
        var due = queue.popDue(now: .milliseconds(400), scheduledBy: all)
        #expect(due == nil)
        due = queue.popDue(now: .seconds(10), scheduledBy: all)
        #expect(due == id("a", .E))
        due = queue.popDue(now: .seconds(10), scheduledBy: all)
        #expect(due == id("c", .K))
        due = queue.popDue(now: .seconds(10), scheduledBy: all)
        #expect(due == nil)
        #expect(queue.count == 1)
        next = queue.nextDeadline()
        #expect(next == .seconds(32))
    }

    @Test func restartingATimerKeepsOnlyTheNewDeadline() {
        var queue = TimerQueue()
        queue.schedule(id("a", .E), at: .milliseconds(500))
        queue.schedule(id("a", .E), at: .seconds(1))
        #expect(queue.count == 1)
        let next = queue.nextDeadline()
        #expect(next == .seconds(1))
        let due = queue.popDue(now: .seconds(1), scheduledBy: queue.lastSequence)
        #expect(due == id("a", .E))
        #expect(queue.isEmpty)
    }

    @Test func cancelAllStopsOneTransactionOnOneSide() {
        var queue = TimerQueue()
        queue.schedule(id("a", .E), at: .seconds(1))
        queue.schedule(id("a", .F), at: .seconds(2))
        queue.schedule(id("a", .J, side: .server), at: .seconds(3))
        queue.cancelAll(of: id("a", .E).key, side: .client)
        #expect(queue.count == 1)
        let due = queue.popDue(now: .seconds(5), scheduledBy: queue.lastSequence)
        #expect(due == id("a", .J, side: .server))
    }

    @Test func timersStartedWhileFiringWaitForTheNextTurn() {
        var queue = TimerQueue()
        queue.schedule(id("a", .E), at: .seconds(1))
        let before = queue.lastSequence
        queue.schedule(id("b", .K), at: .seconds(1))
        var due = queue.popDue(now: .seconds(1), scheduledBy: before)
        #expect(due == id("a", .E))
        due = queue.popDue(now: .seconds(1), scheduledBy: before)
        #expect(due == nil)
        due = queue.popDue(now: .seconds(1), scheduledBy: queue.lastSequence)
        #expect(due == id("b", .K))
    }

    @Test func staleEntriesAreDroppedAndCompacted() {
        var queue = TimerQueue()
        for n in 0..<1_000 {
            queue.schedule(id("t\(n)", .E), at: .seconds(Int64(n)))
            queue.cancel(id("t\(n)", .E))
        }
        #expect(queue.isEmpty)
        let next = queue.nextDeadline()
        #expect(next == nil)
    }
}
