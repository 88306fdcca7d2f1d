import PushKitEmu
import PushKitLive
import ToolSupport

/// `live`'s options from the parsed command line.
func liveOptions(_ arguments: ParsedArguments, _ format: PushSimCommand.Format) -> LiveCommand.Options {
    var options = LiveCommand.Options()
    options.policy = arguments.choice("policy", as: PolicyChoice.self) ?? .correct
    options.format = format
    options.gateway.ackWindowMs = Int64(arguments.int("ack-window-ms") ?? 2_000)
    options.gateway.apnsDelayMs = Int64(arguments.int("apns-delay-ms") ?? 0)
    options.gateway.qualifyTimeoutMs = Int64(arguments.int("qualify-timeout-ms") ?? 500)
    options.rfc8599 = arguments.flag("rfc8599")
    options.platform = arguments.choice("platform", as: DevicePlatform.self) ?? .ios
    options.sealed = arguments.flag("sealed")
    options.sealFault = arguments.choice("seal-fault", as: SealFault.self) ?? .none
    options.gateway.sealed = options.sealed
    options.gateway.providerCapture = arguments.string("provider-capture")
    options.sipTrace = arguments.flag(CommonOptions.Key.sipTrace)
    options.wakegw = arguments.string("wakegw")
    options.kamailioScript = arguments.string("kamailio-script")
    options.phoneUser = arguments.string("phone-user")
    options.callerUser = arguments.string("caller-user")
    if let http = arguments.int("gateway-http-port") {
        var environment = LiveEnvironment()
        environment.httpPort = UInt16(clamping: http)
        environment.apnsDevicePort = UInt16(clamping: arguments.int("apns-device-port") ?? 2197)
        environment.sipPort = UInt16(clamping: arguments.int("kamailio-sip-port") ?? 5060)
        environment.wssPort = UInt16(clamping: arguments.int("kamailio-wss-port") ?? 8089)
        environment.caFile = arguments.string("ca-file")
        environment.ackWindowMs = options.gateway.ackWindowMs
        environment.apnsDelayMs = options.gateway.apnsDelayMs
        environment.qualifyTimeoutMs = options.gateway.qualifyTimeoutMs
        options.external = environment
    }
    return options
}
