import Synchronization
import Testing

@testable import SIPTransport

/// Collects what a handler saw, and lets a test wait for a count.
private final class Seen: Sendable {
    private let values = Mutex<[Int]>([])
    func add(_ value: Int) { values.withLock { $0.append(value) } }
    var all: [Int] { values.withLock { $0 } }

    /// Waits (up to 10 s) until `count` values arrived.
    func wait(for count: Int) async -> [Int] {
        for _ in 0..<1000 {
            let now = all
            if now.count >= count { return now }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return all
    }
}

private actor Sink {
    var values: [Int] = []
    var inHandler = false
    var overlapped = false
    func take(_ value: Int) async {
        if inHandler { overlapped = true }
        inHandler = true
        await Task.yield()
        values.append(value)
        inHandler = false
    }
}

@Suite("SerialInbox and EventOutlet: in order, no task parked while idle")
struct SerialInboxTests {
    @Test("Elements reach the handler in order, one at a time, also those yielded before start")
    func ordered() async {
        let inbox = SerialInbox<Int>()
        let sink = Sink()
        for value in 0..<50 { inbox.yield(value) }
        inbox.start { await sink.take($0) }
        for value in 50..<500 { inbox.yield(value) }
        var values: [Int] = []
        for _ in 0..<1000 {
            values = await sink.values
            if values.count == 500 { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(values == Array(0..<500))
        #expect(await sink.overlapped == false)
    }

    @Test("Idle between bursts; finish keeps what waits and drops what follows; discard drops all")
    func finishAndDiscard() async {
        let seen = Seen()
        let inbox = SerialInbox<Int>()
        inbox.start { seen.add($0) }
        inbox.yield(1)
        #expect(await seen.wait(for: 1) == [1])
        try? await Task.sleep(for: .milliseconds(20))
        inbox.yield(2)
        inbox.finish()
        inbox.yield(3)
        #expect(await seen.wait(for: 2) == [1, 2])

        let dropped = SerialInbox<Int>()
        dropped.yield(7)
        dropped.discard()
        dropped.start { seen.add($0) }
        dropped.yield(8)
        try? await Task.sleep(for: .milliseconds(50))
        #expect(seen.all == [1, 2])
    }

    @Test("EventOutlet: what came before the reader chose goes first, to the handler or the stream")
    func outlet() async {
        let redirected = EventOutlet<Int>()
        redirected.yield(1)
        let seen = Seen()
        #expect(redirected.redirect { seen.add($0) })
        redirected.yield(2)
        redirected.finish()
        redirected.yield(3)
        #expect(seen.all == [1, 2])
        #expect(redirected.redirect { seen.add($0 * 10) } == false)

        let streamed = EventOutlet<Int>()
        streamed.yield(1)
        streamed.yield(2)
        streamed.finish()
        var values: [Int] = []
        for await value in streamed.stream { values.append(value) }
        #expect(values == [1, 2])
        #expect(streamed.redirect { seen.add($0) } == false)
    }
}
