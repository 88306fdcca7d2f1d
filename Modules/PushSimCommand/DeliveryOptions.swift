import PushKitEmu
import ToolSupport

/// `--apns-delay`, `--cold-launch`, `--loss-percent` from the parsed command line; a bad spec is
/// a usage error (exit 64).
func deliveryOverrides(_ arguments: ParsedArguments) throws(ToolError) -> DeliveryOverrides {
    var overrides = DeliveryOverrides()
    do throws(DelaySpecError) {
        if let spec = arguments.string("apns-delay") { overrides.apnsDelay = try DelayDistribution(spec: spec) }
        if let spec = arguments.string("cold-launch") { overrides.coldLaunch = try DelayDistribution(spec: spec) }
    } catch {
        throw ToolError(.usage, error.reason)
    }
    if let loss = arguments.double("loss-percent") {
        guard (0...100).contains(loss) else { throw ToolError(.usage, "--loss-percent must be in 0...100") }
        overrides.lossPercent = loss
    }
    return overrides
}
