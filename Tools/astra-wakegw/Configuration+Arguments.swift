import JWT
import PushKitEmu
import SIPTransport
import ToolSupport
import WakeGateway

/// astra-wakegw's flags → ``WakeGatewayConfiguration``; every number range-checked here, once.
extension WakeGatewayConfiguration {
    init(arguments a: ParsedArguments) throws(ToolError) {
        self.init()
        let sip = try Self.address(a.string("sip") ?? "127.0.0.1:5070", "sip")
        (sipHost, sipPort) = (sip.ip, sip.port)
        kamailio = try Self.address(a.string("kamailio") ?? "127.0.0.1:5060", "kamailio")
        for text in a.strings("trust") {
            for item in text.split(separator: ",") {
                guard let source = TrustedSource(parsing: String(item)) else {
                    throw ToolError(.usage, "--trust must be IPv4 or IPv4:PORT, got '\(item)'")
                }
                trusted.append(source)
            }
        }
        httpHost = try Self.host(a.string("http-host") ?? "127.0.0.1", "http-host")
        apnsDeviceHost = try Self.host(a.string("apns-device-host") ?? "127.0.0.1", "apns-device-host")
        httpPort = UInt16(try Self.int(a, "http-port", 0...65_535))
        apnsDevicePort = UInt16(try Self.int(a, "apns-device-port", 0...65_535))
        let ms: [(String, WritableKeyPath<WakeGatewayConfiguration, Int64>)] = [
            ("apns-delay-ms", \.apnsDelayMs), ("ack-window-ms", \.ackWindowMs), ("register-wait-ms", \.registerWaitMs),
            ("qualify-timeout-ms", \.qualifyTimeoutMs), ("ring-timeout-ms", \.ringTimeoutMs),
            ("apns-backoff-ms", \.apnsBackoffMs),
        ]
        for (flag, path) in ms { self[keyPath: path] = Int64(try Self.int(a, flag, 0...86_400_000)) }
        sipT1Ms = Int64(try Self.int(a, "sip-t1-ms", 10...5_000))
        pushRateLimit = PushRateLimit(
            burst: try Self.int(a, "push-burst", 1...1_000), perMinute: try Self.int(a, "push-per-minute", 1...60_000))
        httpLimits.maxConnections = try Self.int(a, "http-max-connections", 1...65_536)
        httpLimits.maxPerPeer = httpLimits.maxConnections
        httpLimits.headerTimeoutMs = Int64(try Self.int(a, "http-header-timeout-ms", 10...600_000))
        httpLimits.idleTimeoutMs = Int64(try Self.int(a, "http-idle-timeout-ms", 10...3_600_000))
        apnsDeviceLimits.maxConnections = try Self.int(a, "apns-device-max-connections", 1...65_536)
        apnsDeviceLimits.maxPerPeer = apnsDeviceLimits.maxConnections
        apnsDeviceLimits.headerTimeoutMs = Int64(try Self.int(a, "apns-hello-timeout-ms", 10...600_000))
        failoverURI = a.string("failover-uri")
        goneNotice = a.flag("gone-notice")
        pnEnvironment = a.choice("pn-environment", as: APNsEnvironment.self) ?? .sandbox
        auth = try Self.auth(a)
    }

    /// The bearer check from the `--jwt-…` flags; at least one key is required (no open door by default).
    static func auth(_ a: ParsedArguments) throws(ToolError) -> TokenAPIAuth {
        var keys: [JWTKey] = []
        do {
            if let file = a.string("jwt-hs256-secret-file") { keys.append(try JWTKey.hmac(secretFile: file)) }
            if let file = a.string("jwt-public-key-file") { keys.append(try JWTKey.publicKey(file: file)) }
        } catch {
            throw ToolError(.usage, "JWT key file refused (\(error.detail))")
        }
        guard !keys.isEmpty else {
            throw ToolError(
                .usage,
                "no JWT verification key given: use --jwt-hs256-secret-file or --jwt-public-key-file (JWTs guard the token endpoints)")
        }
        let policy = JWTPolicy(
            issuer: a.string("jwt-issuer"), audience: a.string("jwt-audience"),
            clockSkewSeconds: Int64(try int(a, "jwt-clock-skew-s", 0...300)),
            maxLifetimeSeconds: Int64(try int(a, "jwt-max-lifetime-s", 60...604_800)))
        return TokenAPIAuth(verifier: JWTVerifier(keys: keys, policy: policy), org: a.string("jwt-org"))
    }

    static func int(_ a: ParsedArguments, _ flag: String, _ range: ClosedRange<Int>) throws(ToolError) -> Int {
        guard let value = a.int(flag), range.contains(value) else {
            throw ToolError(.usage, "--\(flag) must be \(range.lowerBound)-\(range.upperBound)")
        }
        return value
    }

    static func address(_ text: String, _ flag: String) throws(ToolError) -> SocketAddress {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]), let address = SocketAddress(ip: String(parts[0]), port: port)
        else {
            throw ToolError(.usage, "--\(flag) must be IPv4:PORT, got '\(text)'")
        }
        return address
    }

    static func host(_ text: String, _ flag: String) throws(ToolError) -> String {
        guard let address = SocketAddress(ip: text, port: 0), !address.isIPv6 else {
            throw ToolError(.usage, "--\(flag) must be a numeric IPv4 address, got '\(text)'")
        }
        return text
    }
}
