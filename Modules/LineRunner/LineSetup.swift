import SIPCore
import SIPDialog
import SIPTransport
import ToolSupport

/// Turns a validated line into the objects that register it: the flow target and options, the
/// endpoint, and the registration machine. Shared by astra-register and astra-call (docs/line.md → RFC 3261 §10.2).
public struct LineSetup: Sendable {
    public let line: Line
    public let transport: TransportKind
    public let target: FlowTarget
    public let aor: SIPURI
    public let registrar: SIPURI

    /// The message of a line that turns TLS verification off without the tool's `--insecure`.
    public static let insecureRefusal =
        "the line turns TLS certificate verification off (tls_verify false); pass --insecure to allow it (test rigs only)"

    /// Sets up `line`. `insecure` is the tool's own `--insecure` flag, the way curl has `-k`:
    /// it turns certificate verification off for the run, and without it a line that says
    /// `tls_verify: false` is refused (64, ``insecureRefusal``). A line comes from a file, a
    /// pipeline or a QR code, so it alone must not be able to lower how it is protected
    /// (RFC 3261 §26.2.1; docs/line.md "TLS verification").
    public init(line: Line, insecure: Bool = false) throws(ToolError) {
        var line = line
        if insecure {
            line.tlsVerify = false
        } else if !line.effectiveTLSVerify {
            throw ToolError(.usage, Self.insecureRefusal)
        }
        self.line = line
        guard let kind = TransportKind(rawValue: line.transport.rawValue) else {
            throw ToolError(.usage, "transport \(line.transport) is not supported")
        }
        transport = kind
        target = FlowTarget(host: line.effectiveServerHost, port: UInt16(line.effectivePort), transport: kind)
        do {
            aor = try SIPURI(parsing: "sip:\(line.user)@\(line.domain)")
            registrar = try SIPURI(parsing: "sip:\(line.domain)")
        } catch {
            throw ToolError(.usage, "line: user or domain is not valid in a SIP URI: \(error)")
        }
        // A CA file that cannot be loaded is configuration (64), found before any connection.
        if let caFile = line.caFile, kind.isSecure, line.effectiveTLSVerify {
            do {
                try TLSOptions.checkCAFile(caFile)
            } catch {
                throw ToolError(.usage, error.detail)
            }
        }
    }

    /// Connection options: TLS verification on unless the line turns it off, the line's CA file,
    /// WebSocket path, keep-alive, and the redacting SIP trace on stderr when asked for.
    public func connectionOptions(sipTrace: Bool, verbosity: Int, diagnostics: Diagnostics) -> ConnectionOptions {
        connectionOptions(trace: sipTrace ? .standardError : nil, verbosity: verbosity, diagnostics: diagnostics)
    }

    /// The same, with the trace hook a tool built (a `CaptureHub`'s: ladder, file, pcap, HEP).
    public func connectionOptions(trace: SIPTrace?, verbosity: Int, diagnostics: Diagnostics) -> ConnectionOptions {
        var options = ConnectionOptions()
        if line.effectiveTLSVerify {
            options.tls = TLSOptions(caFile: line.caFile, serverName: line.tlsServerName)
        } else {
            options.tls = .insecure()
            if transport.isSecure {
                diagnostics.warning("TLS certificate verification is OFF (--insecure): insecure")
            }
        }
        options.webSocketPath = line.effectiveWSPath ?? "/ws"
        options.trace = trace
        let minimum: TransportLog.Level = verbosity >= 2 ? .debug : (verbosity == 1 ? .info : .error)
        options.log = .standardError(minimum: minimum)
        return options
    }

    public func registrationSettings(
        expires: Int?, keep: Bool, ids: some IdentifierSource, userAgent: String = "astra-register",
        expiresPolicy: ClosedRange<UInt32>? = nil
    ) -> RegistrationSettings {
        var settings = RegistrationSettings()
        // Sent as asked (the line's expires, else 3600); only an explicit policy clamps it.
        settings.requestedExpires = UInt32(clamping: expires ?? line.effectiveExpires)
        settings.expiresBounds = expiresPolicy
        settings.retryOnFailure = keep
        settings.userAgent = AstraVersion.product(userAgent)
        // RFC 5626 §4.1: one instance ID per device; a tool run is one device.
        settings.instanceID = "urn:uuid:" + ids.uuidString()
        if let provider = line.pushProvider, let token = line.pushToken {
            settings.push = PushParameters(provider: provider, prid: token, param: line.pushTopic)
        }
        return settings
    }

    public var credentials: DigestCredentials? {
        line.password.map { DigestCredentials(username: line.effectiveAuthUser, password: $0) }
    }
}

extension IdentifierSource {
    /// A random (version 4) UUID string, RFC 9562 §5.4.
    public func uuidString() -> String {
        let a = nextUInt64(), b = nextUInt64()
        var bytes = (0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? a : b) >> (8 * ($0 % 8))) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
