import JWT
import PushKitEmu
import SIPCore
import SIPTransport
import ToolSupport
import WakeGateway

/// astra-wakegw's flags → ``WakeGatewayConfiguration``. Every number was range-checked by the tool
/// spec (ToolSpecs.wakegw) before this runs.
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
        httpPort = UInt16(try Self.int(a, "http-port"))
        apnsDevicePort = UInt16(try Self.int(a, "apns-device-port"))
        let ms: [(String, WritableKeyPath<WakeGatewayConfiguration, Int64>)] = [
            ("apns-delay-ms", \.apnsDelayMs), ("ack-window-ms", \.ackWindowMs), ("register-wait-ms", \.registerWaitMs),
            ("qualify-timeout-ms", \.qualifyTimeoutMs), ("ring-timeout-ms", \.ringTimeoutMs),
            ("apns-backoff-ms", \.apnsBackoffMs),
        ]
        for (flag, path) in ms { self[keyPath: path] = Int64(try Self.int(a, flag)) }
        sipT1Ms = Int64(try Self.int(a, "sip-t1-ms"))
        pushRateLimit = PushRateLimit(
            burst: try Self.int(a, "push-burst"), perMinute: try Self.int(a, "push-per-minute"))
        httpLimits.maxConnections = try Self.int(a, "http-max-connections")
        httpLimits.maxPerPeer = httpLimits.maxConnections
        httpLimits.headerTimeoutMs = Int64(try Self.int(a, "http-header-timeout-ms"))
        httpLimits.idleTimeoutMs = Int64(try Self.int(a, "http-idle-timeout-ms"))
        apnsDeviceLimits.maxConnections = try Self.int(a, "apns-device-max-connections")
        apnsDeviceLimits.maxPerPeer = apnsDeviceLimits.maxConnections
        apnsDeviceLimits.headerTimeoutMs = Int64(try Self.int(a, "apns-hello-timeout-ms"))
        failoverURI = a.string("failover-uri")
        try gateways(a)
        goneNotice = a.flag("gone-notice")
        pnEnvironment = a.choice("pn-environment", as: APNsEnvironment.self) ?? .sandbox
        sealed = a.choice("sealed", as: SealedMode.self) ?? .optional
        auth = try Self.auth(a)
        try providers(a)
    }

    /// `--gateway-id` and `--peer ID=IP:PORT`: several gateways, each ack forwarded to the holder.
    mutating func gateways(_ a: ParsedArguments) throws(ToolError) {
        if let id = a.string("gateway-id") {
            guard GatewayID.isValid(id) else {
                throw ToolError(.usage, "--gateway-id must be 1-16 of a-z, 0-9, _, got '\(Redaction.untrusted(id, limit: 40))'")
            }
            gatewayID = id
        }
        for text in a.strings("peer") {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, GatewayID.isValid(parts[0]), parts[0] != gatewayID else {
                throw ToolError(.usage, "--peer must be ID=IPv4:PORT (another gateway's id), got '\(Redaction.untrusted(text, limit: 60))'")
            }
            peers[parts[0]] = try Self.address(parts[1], "peer")
        }
    }

    /// The push provider flags: hosts, credentials, the emulator's listeners.
    mutating func providers(_ a: ParsedArguments) throws(ToolError) {
        apnsSandboxURL = try Self.url(a, "apns-url")
        apnsProductionURL = try Self.url(a, "apns-production-url")
        fcmURL = try Self.url(a, "fcm-url")
        apnsTeamID = a.string("apns-team-id") ?? apnsTeamID
        guard FCMTokenText.isName(apnsTeamID) else { throw ToolError(.usage, "--apns-team-id must be a team id") }
        do {
            if let file = a.string("apns-key-file") {
                guard let kid = a.string("apns-key-id"), FCMTokenText.isName(kid) else {
                    throw ToolError(.usage, "--apns-key-file needs --apns-key-id (the key's 10-character id)")
                }
                let key = try JWTKey.privateKey(file: file)
                guard key.algorithm == .es256 else {
                    throw ToolError(.usage, "--apns-key-file must be an EC P-256 key (.p8), not \(key.algorithm.rawValue)")
                }
                apnsKey = key.identified(as: kid)
            }
            if let file = a.string("fcm-service-account") { fcmAccount = try FCMServiceAccount.load(file: file) }
        } catch let error as ToolError {
            throw error
        } catch let error as JWTError {
            throw ToolError(.usage, "provider credentials refused (\(error.detail))")
        } catch {
            throw ToolError(.usage, "provider credentials refused")
        }
        if (apnsSandboxURL != nil || apnsProductionURL != nil) && apnsKey == nil {
            throw ToolError(.usage, "--apns-url/--apns-production-url need --apns-key-file and --apns-key-id")
        }
        if fcmURL != nil && fcmAccount == nil { throw ToolError(.usage, "--fcm-url needs --fcm-service-account") }
        providerCAFile = a.string("provider-ca-file")
        providerTimeoutMs = Int64(try Self.int(a, "provider-timeout-ms"))
        fcmTTLSeconds = Int64(try Self.int(a, "fcm-ttl-s"))
        emulatorHost = try Self.host(a.string("emulator-host") ?? "127.0.0.1", "emulator-host")
        apnsEmulatorPort = UInt16(try Self.int(a, "apns-emulator-port"))
        apnsEmulatorProductionPort = UInt16(try Self.int(a, "apns-emulator-production-port"))
        fcmEmulatorPort = UInt16(try Self.int(a, "fcm-emulator-port"))
        providerCapture = a.string("provider-capture")
        // Checked now (exit 64, one line), not when the emulator opens it after the listeners are up.
        if let providerCapture { try OutputFile.check(providerCapture, option: "--provider-capture") }
        emulatorCertFile = a.string("emulator-cert-file")
        emulatorKeyFile = a.string("emulator-key-file")
        if (emulatorCertFile == nil) != (emulatorKeyFile == nil) {
            throw ToolError(.usage, "--emulator-cert-file and --emulator-key-file go together")
        }
    }

    /// An `https://host[:port]` provider URL (no path, no userinfo), or nil when the flag is absent.
    static func url(_ a: ParsedArguments, _ flag: String) throws(ToolError) -> String? {
        guard let text = a.string(flag) else { return nil }
        var rest = Substring(text)
        guard rest.hasPrefix("https://") else { throw ToolError(.usage, "--\(flag) must be an https:// URL") }
        rest = rest.dropFirst(8)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let allowed = rest.utf8.allSatisfy {
            (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 46 || $0 == 45
                || $0 == 58 || $0 == 91 || $0 == 93
        }
        guard !rest.isEmpty, rest.utf8.count <= 255, allowed else {
            throw ToolError(.usage, "--\(flag) must be https://HOST[:PORT] with no path, got '\(Redaction.untrusted(text, limit: 80))'")
        }
        return "https://" + rest
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
            clockSkewSeconds: Int64(try int(a, "jwt-clock-skew-s")),
            maxLifetimeSeconds: Int64(try int(a, "jwt-max-lifetime-s")))
        return TokenAPIAuth(verifier: JWTVerifier(keys: keys, policy: policy), org: a.string("jwt-org"))
    }

    /// The value of an integer flag (the spec gave it a default and checked its range).
    static func int(_ a: ParsedArguments, _ flag: String) throws(ToolError) -> Int {
        guard let value = a.int(flag) else { throw ToolError(.usage, "--\(flag) needs a number") }
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
