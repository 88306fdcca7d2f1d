import CFuzzer
import Glibc
import SIPCore

/// Hands the active target to libFuzzer (or replays files through it without libFuzzer).
enum FuzzDriver {
    /// The target of this process; set once in `main` before libFuzzer starts, read by the C
    /// callbacks below (which cannot capture context).
    nonisolated(unsafe) static var active: FuzzTarget?

    /// libFuzzer with the target's `-max_len` and dictionary first, so flags given later win.
    static func runLibFuzzer(_ target: FuzzTarget, arguments: [String]) -> Int32 {
        var flags = [CommandLine.arguments[0], "-max_len=\(target.maxLength)"] + target.flags
        if let dictionary = target.dictionary, !arguments.contains(where: { $0.hasPrefix("-dict=") }) {
            let path = "Fuzz/dict/\(dictionary).dict"
            if access(path, R_OK) == 0 {
                flags.append("-dict=" + path)
            } else {
                printError("astra-fuzz: no dictionary at \(path) (run from the repository root)")
            }
        }
        // A custom mutator exists in this binary (for the structure-aware targets), which makes
        // libFuzzer drop its input-length schedule for every target: keep it for the others.
        if target.mutate == nil, !arguments.contains(where: { $0.hasPrefix("-len_control=") }) {
            flags.append("-len_control=100")
        }
        flags += arguments
        var argc = Int32(flags.count)
        let cStrings = flags.map { strdup($0) } + [nil]
        let argvStorage = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: cStrings.count)
        argvStorage.initialize(from: cStrings, count: cStrings.count)
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argvStorage
        return astra_fuzzer_run(&argc, &argv) { data, size in
            FuzzDriver.active!.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        }
    }

    /// Runs each file once; a folder stands for its files.
    static func replay(_ target: FuzzTarget, paths: [String]) -> Int32 {
        guard !paths.isEmpty else {
            printError("astra-fuzz: this build has no libFuzzer (scripts/fuzz.sh builds one); give inputs to replay")
            return 64
        }
        var count = 0
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { SeedFiles.fail("no such input: \(path)") }
            let files = info.st_mode & S_IFMT == S_IFDIR ? SeedFiles.paths(in: path) : [path]
            for file in files {
                target.run(SeedFiles.read(file))
                count += 1
            }
        }
        printError("astra-fuzz: \(target.name): replayed \(count) inputs")
        return 0
    }
}

/// libFuzzer calls this (when defined) instead of its own mutations: targets with a
/// structure-aware ``FuzzTarget/mutate`` use it, the others get libFuzzer's byte mutations.
@_cdecl("LLVMFuzzerCustomMutator")
func fuzzCustomMutator(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard let mutate = FuzzDriver.active?.mutate else { return astra_fuzzer_mutate(data, size, maxSize) }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let output = Array(mutate(input, maxSize, seed).prefix(maxSize))
    output.withUnsafeBufferPointer { if let base = $0.baseAddress { data.update(from: base, count: $0.count) } }
    return output.count
}

extension FuzzDriver {
    /// libFuzzer's byte-level mutation of one piece of a structured input (a header value, an
    /// attribute), growing it by at most `growth` bytes.
    static func mutateBytes(_ bytes: [UInt8], growth: Int = 32) -> [UInt8] {
        var buffer = bytes + [UInt8](repeating: 0, count: growth)
        let n = buffer.withUnsafeMutableBufferPointer { astra_fuzzer_mutate($0.baseAddress!, bytes.count, $0.count) }
        return Array(buffer.prefix(n))
    }
}
