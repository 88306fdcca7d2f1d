/// The client policy to run: the shipped presets.
public enum PolicyChoice: String, Sendable, Hashable, CaseIterable {
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
}
