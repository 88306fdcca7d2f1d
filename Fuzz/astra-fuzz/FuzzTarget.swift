/// One fuzz target: a parser that takes outside bytes, driven through its module's public or
/// package API, with the invariants it must keep. A thrown error is a normal outcome; a trap,
/// a sanitizer report or a broken ``invariant(_:_:)`` is a finding (libFuzzer calls it a crash).
struct FuzzTarget: Sendable {
    /// The name `make fuzz` and `astra-fuzz NAME` use.
    let name: String
    /// What is fed in and what is checked, one line (`astra-fuzz list`).
    let summary: String
    /// libFuzzer's `-max_len`: the largest input it makes.
    let maxLength: Int
    /// `Fuzz/dict/<dictionary>.dict`, when the target has a dictionary.
    let dictionary: String?
    /// The seed corpus: the project's vectors and golden files, or messages the modules' own
    /// encoders produce from them (`astra-fuzz seeds`).
    let seeds: @Sendable () -> [[UInt8]]
    /// One input through the parser.
    let run: @Sendable ([UInt8]) -> Void
    /// A structure-aware mutation of one input (nil: libFuzzer's byte-level mutations only).
    let mutate: (@Sendable (_ input: [UInt8], _ maxSize: Int, _ seed: UInt32) -> [UInt8])?
    /// libFuzzer flags this target needs (given before the caller's, which win).
    let flags: [String]

    init(
        name: String, summary: String, maxLength: Int, dictionary: String? = nil, flags: [String] = [],
        seeds: @escaping @Sendable () -> [[UInt8]], run: @escaping @Sendable ([UInt8]) -> Void,
        mutate: (@Sendable (_ input: [UInt8], _ maxSize: Int, _ seed: UInt32) -> [UInt8])? = nil
    ) {
        self.flags = flags
        self.name = name
        self.summary = summary
        self.maxLength = maxLength
        self.dictionary = dictionary
        self.seeds = seeds
        self.run = run
        self.mutate = mutate
    }
}

/// A property every input must keep; a violation stops the fuzzer with `message` (a finding).
/// `fatalError`, not `precondition`: its message survives `-O`.
@inline(__always)
func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("invariant broken: \(message())") }
}
