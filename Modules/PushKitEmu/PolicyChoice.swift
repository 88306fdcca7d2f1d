/// Where the client policy under test comes from, one fresh policy per scenario run: a shipped
/// preset (``PolicyChoice``), the user's own Swift type, or a client process speaking the
/// client protocol (PushKitLive's `ClientProcessSource`, docs/pushkit-emulator.md "Bring your own client").
public protocol PolicySource {
    /// The policy type (the simulation is specialised on it).
    associatedtype Policy: PushClientPolicy
    /// The name timelines and verdicts print.
    var name: String { get }
    /// A fresh policy for one run of `scenario`: no state from an earlier run.
    func policy(for scenario: Scenario) -> Policy
    /// A client process's first protocol fault, so a run whose policy was never called still
    /// fails when its client is gone. Default nil.
    var failure: ClientFault? { get }
    /// What the run's gateway seals with and the policy opens with: a client process must be
    /// given blobs its own AES-GCM opens (PushKitLive's `CallSealBox`). Default ``SymbolicSealBox``.
    var sealing: any SealBox { get }
}

extension PolicySource {
    public var failure: ClientFault? { nil }
    public var sealing: any SealBox { SymbolicSealBox() }
}

/// The client policy to run: the shipped presets.
public enum PolicyChoice: String, Sendable, Hashable, CaseIterable, PolicySource {
    /// ``ReferencePolicy/correct(_:)``.
    case correct
    /// ``ReferencePolicy/naive(_:)``.
    case naive

    /// The policy value for `settings`.
    public func policy(_ settings: EmulatorSettings) -> ReferencePolicy {
        switch self {
        case .correct: .correct(settings)
        case .naive: .naive(settings)
        }
    }

    public var name: String { rawValue }

    public func policy(for scenario: Scenario) -> ReferencePolicy { policy(scenario.settings) }
}

/// Any policy made by a closure (a Swift package's own client, a preset with chosen faults).
public struct PolicyMaker<P: PushClientPolicy>: PolicySource, Sendable {
    public let name: String
    let make: @Sendable (Scenario) -> P

    /// `make` builds a fresh policy for each scenario run.
    public init(name: String, _ make: @escaping @Sendable (Scenario) -> P) {
        self.name = name
        self.make = make
    }

    public func policy(for scenario: Scenario) -> P { make(scenario) }
}
