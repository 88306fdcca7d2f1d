/// Which delivery conditions a scenario runs under (`--delivery`).
public enum DeliveryModel: String, Sendable, Hashable, CaseIterable {
    /// The documented fixed delays, nothing lost: deterministic, one run per scenario.
    case ideal
    /// ``EmulatorSettings/withFieldDelivery()``: APNs delay, loss, late delivery of expired pushes
    /// and cold launch drawn from the field distributions, per seed.
    case field

    /// `settings` under this model, then the command line's explicit delays on top.
    public func apply(to settings: EmulatorSettings, overrides: DeliveryOverrides = DeliveryOverrides())
        -> EmulatorSettings
    {
        var s = self == .field ? settings.withFieldDelivery() : settings
        if let delay = overrides.apnsDelay { s.apnsDelay = delay }
        if let launch = overrides.coldLaunch { s.launchFromKilled = launch }
        if let loss = overrides.lossPercent { s.apnsLossPercent = loss }
        return s
    }
}

/// Delivery settings given on the command line (`--apns-delay`, `--cold-launch`, `--loss-percent`);
/// each replaces the scenario's or the model's value.
public struct DeliveryOverrides: Sendable, Hashable {
    public var apnsDelay: DelayDistribution?
    public var coldLaunch: DelayDistribution?
    public var lossPercent: Double?
    public init(apnsDelay: DelayDistribution? = nil, coldLaunch: DelayDistribution? = nil, lossPercent: Double? = nil) {
        self.apnsDelay = apnsDelay
        self.coldLaunch = coldLaunch
        self.lossPercent = lossPercent
    }
}
