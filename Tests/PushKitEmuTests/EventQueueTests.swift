import PushKitEmu
import Testing

@Suite struct EventQueueTests {
    @Test func popsInTimeThenInsertionOrder() {
        var queue = EventQueue<Int>()
        let input: [(Int, Int64)] = [(1, 50), (2, 10), (3, 50), (4, 0), (5, 10), (6, 99), (7, 0)]
        for (value, time) in input { queue.push(value, at: time) }
        var out: [Int] = []
        while let (_, value) = queue.pop() { out.append(value) }
        #expect(out == [4, 7, 2, 5, 1, 3, 6])
    }

    @Test func randomisedAgainstSort() {
        var rng = SplitMix64(seed: 42)
        var queue = EventQueue<Int>()
        var reference: [(Int64, Int)] = []
        for i in 0..<2_000 {
            let t = rng.below(500)
            queue.push(i, at: t)
            reference.append((t, i))
        }
        reference.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var out: [Int] = []
        while let (_, value) = queue.pop() { out.append(value) }
        #expect(out == reference.map(\.1))
    }
}
