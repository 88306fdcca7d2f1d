// astra-wakegw — the push wake gateway beside Kamailio (docs/man/astra-wakegw.md, docs/wake-gateway.md).
// Thin main: ToolSupport parses and prints; WakeGateway.WakeGatewayServer does the work.
import PushKitEmu
import SIPTransport
import ToolSupport
import WakeGateway

func address(_ text: String, _ flag: String) throws -> SocketAddress {
    let parts = text.split(separator: ":")
    guard parts.count == 2, let port = UInt16(parts[1]), let address = SocketAddress(ip: String(parts[0]), port: port)
    else {
        throw ToolError(.usage, "--\(flag) must be IPv4:PORT, got '\(text)'")
    }
    return address
}

await ToolMain.run(ToolSpecs.wakegw) { context in
    let a = context.arguments
    var configuration = WakeGatewayConfiguration()
    let sip = try address(a.string("sip") ?? "127.0.0.1:5070", "sip")
    (configuration.sipHost, configuration.sipPort) = (sip.ip, sip.port)
    configuration.kamailio = try address(a.string("kamailio") ?? "127.0.0.1:5060", "kamailio")
    for (flag, value) in [("http-port", a.int("http-port")), ("apns-device-port", a.int("apns-device-port"))] {
        guard let value, (0...65_535).contains(value) else { throw ToolError(.usage, "--\(flag) must be 0-65535") }
    }
    configuration.httpPort = UInt16(a.int("http-port") ?? 8088)
    configuration.apnsDevicePort = UInt16(a.int("apns-device-port") ?? 2197)
    let ms: [(String, WritableKeyPath<WakeGatewayConfiguration, Int64>)] = [
        ("apns-delay-ms", \.apnsDelayMs), ("ack-window-ms", \.ackWindowMs), ("register-wait-ms", \.registerWaitMs),
        ("qualify-timeout-ms", \.qualifyTimeoutMs), ("ring-timeout-ms", \.ringTimeoutMs),
    ]
    for (flag, path) in ms {
        guard let value = a.int(flag), value >= 0 else { throw ToolError(.usage, "--\(flag) must be a number ≥ 0") }
        configuration[keyPath: path] = Int64(value)
    }
    configuration.failoverURI = a.string("failover-uri")
    configuration.goneNotice = a.flag("gone-notice")
    configuration.pnEnvironment = a.choice("pn-environment", as: APNsEnvironment.self) ?? .sandbox
    let output = context.output
    let diagnostics = context.diagnostics
    let gateway: WakeGatewayServer<ContinuousClock>
    do {
        gateway = try WakeGatewayServer(
            configuration: configuration, clock: ContinuousClock(),
            emit: { event in
                var fields = JSONObject()
                for field in event.fields {
                    switch field.value {
                    case .string(let s): fields[field.key] = .string(s)
                    case .int(let i): fields[field.key] = .int(Int(i))
                    case .bool(let b): fields[field.key] = .bool(b)
                    }
                }
                output.emit(event.name, fields)
            },
            log: { line in diagnostics.info(line) })
        _ = try await gateway.start()
    } catch {
        diagnostics.error("\(error)")
        return .network
    }
    let signals = await SignalEvents.stream()
    for await signal in signals {
        diagnostics.info("\(signal): stopping")
        break
    }
    await gateway.stop()
    output.emit("stopped")
    return .success
}
