// astra-pushsim: exercise the push-wake rules (docs/man/astra-pushsim.md).
// Interim thin main (plain CommandLine parsing) until ToolSupport lands; logic: PushKitEmu.PushSimCommand.
import FoundationEssentials
import PushKitEmu

#if canImport(Glibc)
    import Glibc
#endif

func eprint(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

var args = Array(CommandLine.arguments.dropFirst())
var values: [String: String] = [:]
var positional: [String] = []
while !args.isEmpty {
    let a = args.removeFirst()
    if a == "--help" || a == "-h" {
        print(
            "USAGE: astra-pushsim run SCENARIO|FILE|- | check | fuzz [--policy naive|correct] [--seed N] [--count N] [--strike-limit N] [--format json|text]"
        )
        exit(0)
    }
    if a.hasPrefix("--") && !args.isEmpty {
        values[String(a.dropFirst(2))] = args.removeFirst()
    } else {
        positional.append(a)
    }
}
var options = PushSimOptions()
options.policy = PolicyChoice(rawValue: values["policy"] ?? "correct") ?? options.policy
options.format = PushSimCommand.Format(rawValue: values["format"] ?? "json") ?? options.format
options.seed = values["seed"].flatMap { UInt64($0) } ?? 1
options.count = values["count"].flatMap { Int($0) } ?? 1_000
options.strikeLimit = values["strike-limit"].flatMap { Int($0) }
let output = PushSimCommand.execute(positional.first ?? "", scenario: positional.dropFirst().first, options: options) {
    path in
    if path == "-" {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n <= 0 { return bytes }
            bytes += chunk[0..<n]
        }
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ScenarioError(.invalidJSON, "cannot read '\(path)'")
    }
    return [UInt8](data)
}
for line in output.stdout { print(line) }
for line in output.stderr { eprint("astra-pushsim: " + line) }
exit(output.exitCode)
