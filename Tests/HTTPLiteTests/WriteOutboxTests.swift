import Glibc
import Synchronization
import Testing

@testable import HTTPLite

/// The outbox alone: a socket that takes what a script says, one answer per `send`.
@Suite struct WriteOutboxTests {
    /// Plays a socket: each `send` takes the next scripted answer (bytes taken, or -errno), and
    /// records the bytes it took.
    final class ScriptedSocket {
        var answers: [Int]
        var taken: [UInt8] = []
        init(_ answers: [Int]) { self.answers = answers }
        func send(_ raw: UnsafeRawBufferPointer) -> Int {
            guard !answers.isEmpty else { return -Int(EAGAIN) }
            let answer = answers.removeFirst()
            guard answer >= 0 else { return answer }
            let n = min(answer, raw.count)
            taken += raw.prefix(n)
            return n
        }
    }

    final class Completions: Sendable {
        let results = Mutex<[String: Bool]>([:])
        func done(_ name: String) -> WriteOutbox.Done { { ok in self.results.withLock { $0[name] = ok } } }
        var all: [String: Bool] { results.withLock { $0 } }
    }

    @Test func writesWholeInOrderAcrossPartialSends() {
        var outbox = WriteOutbox()
        let completions = Completions()
        outbox.append(Array("hello ".utf8), timeoutMs: 100, done: completions.done("a"))
        outbox.append(Array("world".utf8), timeoutMs: 200, done: completions.done("b"))
        let socket = ScriptedSocket([2, -Int(EINTR), 3, 1, 5])
        let (result, done) = outbox.flush(socket.send)
        for d in done { d(true) }
        #expect(result == .drained)
        #expect(String(decoding: socket.taken, as: UTF8.self) == "hello world")
        #expect(completions.all == ["a": true, "b": true])
        #expect(outbox.isEmpty && outbox.sentBytes == 11)
    }

    @Test func aFullSocketKeepsTheRestWithTheHeadWritesTimeout() {
        var outbox = WriteOutbox()
        let completions = Completions()
        outbox.append(Array("abc".utf8), timeoutMs: 100, done: completions.done("a"))
        outbox.append(Array("defg".utf8), timeoutMs: 250, done: completions.done("b"))
        let socket = ScriptedSocket([3, 1, -Int(EAGAIN)])
        let (result, done) = outbox.flush(socket.send)
        for d in done { d(true) }
        #expect(result == .blocked(timeoutMs: 250))
        #expect(completions.all == ["a": true])
        #expect(outbox.pendingBytes == 3 && outbox.sentBytes == 4)
        // Writable again: the rest goes, in order.
        let later = ScriptedSocket([10])
        let (again, rest) = outbox.flush(later.send)
        for d in rest { d(true) }
        #expect(again == .drained)
        #expect(String(decoding: later.taken, as: UTF8.self) == "efg")
        #expect(completions.all == ["a": true, "b": true])
    }

    @Test func aSocketErrorFailsEveryWriteNotSentWhole() {
        var outbox = WriteOutbox()
        let completions = Completions()
        outbox.append(Array("abc".utf8), timeoutMs: 100, done: completions.done("a"))
        outbox.append(Array("def".utf8), timeoutMs: 100, done: completions.done("b"))
        outbox.append([], timeoutMs: 100, done: nil)
        let socket = ScriptedSocket([3, 1, -Int(EPIPE)])
        let (result, done) = outbox.flush(socket.send)
        for d in done { d(true) }
        #expect(result == .failed(errno: EPIPE))
        for d in outbox.failAll() { d(false) }
        #expect(completions.all == ["a": true, "b": false])
        #expect(outbox.isEmpty)
    }

    @Test func anEmptyWriteCompletesWithoutASend() {
        var outbox = WriteOutbox()
        let completions = Completions()
        outbox.append([], timeoutMs: 100, done: completions.done("empty"))
        let socket = ScriptedSocket([])
        let (result, done) = outbox.flush(socket.send)
        for d in done { d(true) }
        #expect(result == .drained)
        #expect(completions.all == ["empty": true] && socket.taken.isEmpty)
    }
}
