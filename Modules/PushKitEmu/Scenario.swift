/// A complete scenario: setup, settings, scripted steps, and the expected call outcomes.
public struct Scenario: Sendable, Hashable {
    /// Short name (`killed`, `dead-phone`, …).
    public var name: String
    /// One line on what it exercises.
    public var summary: String
    /// Timeouts and thresholds (partial overrides in JSON).
    public var settings = EmulatorSettings()
    /// The phone at time 0.
    public var phone = PhoneSetup()
    /// The server.
    public var server = ServerSetup()
    /// The script.
    public var steps: [ScenarioStep] = []
    /// Expected final outcome per call, in order (`connected`, `failed_over`, `cancelled`).
    public var expect: [CallOutcome]?

    public init(name: String, summary: String) {
        self.name = name
        self.summary = summary
    }
}

/// How a server call ended, as the caller saw it.
public enum CallOutcome: String, Sendable, Hashable, Codable {
    /// The phone answered.
    case connected
    /// The server moved to the next target.
    case failedOver = "failed_over"
    /// The caller hung up first.
    case cancelled
    /// Still in progress when the simulation ended.
    case pending
}
