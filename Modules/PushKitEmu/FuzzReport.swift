/// One fuzz case that broke an invariant.
public struct FuzzFailure: Sendable, Hashable {
    /// Case number within the run.
    public var index: Int
    /// The case's own seed: the scenario and the simulation's draws both come from it, so
    /// `astra-pushsim run fuzz:SEED` replays the case exactly, with its timeline.
    public var caseSeed: UInt64
    /// The delivery model the case drew (``Fuzzer/delivery(of:)``).
    public var delivery: DeliveryModel
    /// What was broken.
    public var violations: [Violation]
}

/// The result of a fuzz run.
public struct FuzzReport: Sendable {
    /// Run seed.
    public var seed: UInt64
    /// Cases run.
    public var count: Int
    /// Simulated events processed over all cases.
    public var events: Int
    /// The first failing cases (capped).
    public var failures: [FuzzFailure]
    /// How many cases failed in all.
    public var failingCases = 0
    /// How many cases ran (fewer than `count` when the client broke the protocol).
    public var casesRun = 0
    /// The client process broke the client protocol; the run stopped at that case.
    public var clientFailure: ClientFault?
}
