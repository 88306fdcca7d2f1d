// bench-pushsim: simulated events per second for `astra-pushsim fuzz` on one core.
// Prints ONE JSON object on stdout (scripts/bench.sh). Target: ≥ 1,000,000 events/s (issue 6).
import PushKitEmu

let seed: UInt64 = 20_260_601
let warmup = Fuzzer.run(seed: seed &+ 1, count: 2_000, policy: .correct)
var best = 0.0
var events = 0
var cases = 0
var seconds = 0.0
var failing = warmup.failingCases
let clock = ContinuousClock()
for round in 0..<3 {
    let count = 60_000
    let start = clock.now
    let report = Fuzzer.run(seed: seed &+ UInt64(round), count: count, policy: .correct)
    let elapsed = start.duration(to: clock.now)
    let s = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = Double(report.events) / s
    failing += report.failingCases
    if rate > best {
        best = rate
        events = report.events
        cases = count
        seconds = s
    }
}
let target = 1_000_000.0
print(
    "{\"benchmark\":\"bench-pushsim\",\"metric\":\"simulated_events_per_second\",\"value\":\(Int(best)),"
        + "\"unit\":\"events/s\",\"target\":\(Int(target)),\"meets_target\":\(best >= target),"
        + "\"events\":\(events),\"fuzz_cases\":\(cases),\"seconds\":\((seconds * 1000).rounded() / 1000),"
        + "\"threads\":1,\"policy\":\"correct\",\"invariant_failures\":\(failing),\"best_of\":3}")
