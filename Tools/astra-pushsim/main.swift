// astra-pushsim: exercise the push-wake rules (docs/man/astra-pushsim.md).
// Interim thin main with plain CommandLine parsing; all logic is in PushKitEmu.PushSimCommand.
import FoundationEssentials
import PushKitEmu

#if canImport(Glibc)
import Glibc
#endif

let usage = """
    USAGE: astra-pushsim run SCENARIO|FILE [--policy naive|correct] [--seed N] [--format json|text]
           astra-pushsim check [--policy naive|correct] [--seed N] [--format json|text]
           astra-pushsim fuzz [--seed N] [--count N] [--policy naive|correct] [--format json|text]
    """
func eprint(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
func fail(_ reason: String) -> Never {
    eprint("astra-pushsim: " + reason + "\n" + usage)
    exit(PushSimCommand.exitUsage)
}
var args = Array(CommandLine.arguments.dropFirst())
if args.contains("--help") || args.contains("-h") { print(usage); exit(0) }
var options: [String: String] = [:]
var positional: [String] = []
while !args.isEmpty {
    let a = args.removeFirst()
    if a.hasPrefix("--") {
        guard !args.isEmpty else { fail("\(a) needs a value") }
        options[String(a.dropFirst(2))] = args.removeFirst()
    } else { positional.append(a) }
}
guard let policy = PolicyChoice(rawValue: options["policy"] ?? "correct") else { fail("--policy naive|correct") }
guard let format = PushSimCommand.Format(rawValue: options["format"] ?? "json") else { fail("--format json|text") }
guard let seed = UInt64(options["seed"] ?? "1") else { fail("--seed needs an integer") }
let output: PushSimOutput
switch positional.first {
case "run":
    guard positional.count == 2 else { fail("run needs one SCENARIO") }
    do {
        let scenario = try PushSimCommand.scenario(positional[1]) { path in
            guard let data = FileManager.default.contents(atPath: path) else { throw ScenarioError(.invalidJSON, path) }
            return [UInt8](data)
        }
        output = PushSimCommand.run(scenario, policy: policy, seed: seed, format: format)
    } catch { fail(error.description) }
case "check": output = PushSimCommand.check(policy: policy, seed: seed, format: format)
case "fuzz":
    guard let count = Int(options["count"] ?? "1000"), count >= 0 else { fail("--count needs an integer") }
    output = PushSimCommand.fuzz(seed: seed, count: count, policy: policy, format: format)
default: fail("unknown command \(positional.first ?? "(none)")")
}
for line in output.stdout { print(line) }
for line in output.stderr { eprint(line) }
exit(output.exitCode)
