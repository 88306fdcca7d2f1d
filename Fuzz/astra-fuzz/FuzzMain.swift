import CFuzzer
import Glibc

/// `astra-fuzz`: every libFuzzer target of the project in one executable (docs/fuzzing.md).
///
///     astra-fuzz list                          one line per target: name, max_len, summary
///     astra-fuzz seeds TARGET DIR              write TARGET's seed corpus into DIR
///     astra-fuzz TARGET [FLAGS] [CORPUS…]      fuzz (fuzz build) or replay the inputs (any build)
///
/// The fuzz build (scripts/fuzz.sh) instruments every module for coverage, AddressSanitizer and,
/// in the C shims, UndefinedBehaviorSanitizer, and links libFuzzer's driver. A normal build has
/// no driver: `astra-fuzz TARGET FILE…` then runs each file (or each file of a folder) once, so a
/// crashing input can be replayed under the debugger or in a debug build.
@main
enum FuzzMain {
    static func main() {
        let args = CommandLine.arguments
        guard args.count >= 2 else { usage() }
        switch args[1] {
        case "list":
            for t in FuzzTargets.all { print("\(t.name)\t\(t.maxLength)\t\(t.summary)") }
        case "seeds":
            guard args.count == 4, let target = FuzzTargets.named(args[2]) else { usage() }
            writeSeeds(target, to: args[3])
        case "-h", "--help", "help":
            usage(status: 0)
        default:
            // libFuzzer's -minimize_crash, -merge and -fork run this binary again with its own
            // flags only: the target then comes from ASTRA_FUZZ_TARGET, which the first run sets.
            var rest = Array(args.dropFirst(2))
            var target = FuzzTargets.named(args[1])
            if target == nil, let name = getenv("ASTRA_FUZZ_TARGET").map({ String(cString: $0) }) {
                target = FuzzTargets.named(name)
                rest = Array(args.dropFirst(1))
            }
            guard let target else {
                printError("astra-fuzz: no target '\(args[1])' (astra-fuzz list)")
                exit(64)
            }
            FuzzDriver.active = target
            if astra_fuzzer_linked() != 0 {
                setenv("ASTRA_FUZZ_TARGET", target.name, 1)
                exit(FuzzDriver.runLibFuzzer(target, arguments: rest))
            }
            exit(FuzzDriver.replay(target, paths: rest.filter { !$0.hasPrefix("-") }))
        }
    }

    /// Writes each seed as `DIR/seed-NNNN`, cut to the target's `max_len`.
    static func writeSeeds(_ target: FuzzTarget, to folder: String) {
        mkdir(folder, 0o755)
        let seeds = target.seeds()
        for (i, seed) in seeds.enumerated() {
            let number = String(i)
            let path = folder + "/seed-" + String(repeating: "0", count: max(0, 4 - number.count)) + number
            guard let file = fopen(path, "wb") else { SeedFiles.fail("cannot write \(path)") }
            let bytes = Array(seed.prefix(target.maxLength))
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
        }
        printError("astra-fuzz: \(target.name): \(seeds.count) seeds in \(folder)")
        if seeds.isEmpty { exit(66) }
    }

    static func usage(status: Int32 = 64) -> Never {
        let text = """
            USAGE: astra-fuzz list
                   astra-fuzz seeds <target> <dir>
                   astra-fuzz <target> [<libFuzzer flags>] [<corpus dir or file>...]

            """
        if status == 0 { print(text, terminator: "") } else { printError(text) }
        exit(status)
    }
}
