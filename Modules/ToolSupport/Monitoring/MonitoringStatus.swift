/// A monitoring plugin's result (Monitoring Plugins guidelines, "Plugin output" and
/// "Performance data"): one status line `SERVICE STATE - text|perfdata` on stdout and the exit
/// code of the state. Nagios, Icinga, Naemon and Zabbix's plugin support all read it.
public struct MonitoringStatus: Sendable, Hashable {
    public enum State: Int32, Sendable, Hashable, CaseIterable {
        case ok = 0
        case warning = 1
        case critical = 2
        case unknown = 3

        public var name: String {
            switch self {
            case .ok: "OK"
            case .warning: "WARNING"
            case .critical: "CRITICAL"
            case .unknown: "UNKNOWN"
            }
        }

        public var exitCode: ExitCode { ExitCode(rawValue) }

        /// The state of a check that did not succeed, from the tool's exit code (Monitoring
        /// Plugins guidelines, "Plugin return codes"): UNKNOWN when the check could not be made
        /// as configured — bad arguments or unreadable input (64), a server certificate that does
        /// not verify against the configured CAs (6: give `--ca-file`), an internal error (70);
        /// CRITICAL for what the service did — rejected, unreachable, silent (1, 3, …).
        public static func failure(exit: ExitCode) -> State {
            switch exit {
            case .usage, .certificate, .software: .unknown
            default: .critical
            }
        }
    }

    /// One `'label'=value[UOM];[warn];[crit];[min];[max]`.
    public struct Datum: Sendable, Hashable {
        public var label: String
        public var value: Double
        /// `s`, `ms`, `%`, `B`, `c` or empty.
        public var unit: String
        public var warning: MonitoringRange?
        public var critical: MonitoringRange?
        public var minimum: Double?
        public var maximum: Double?

        public init(
            _ label: String, _ value: Double, unit: String = "", warning: MonitoringRange? = nil,
            critical: MonitoringRange? = nil, minimum: Double? = nil, maximum: Double? = nil
        ) {
            self.label = label
            self.value = value
            self.unit = unit
            self.warning = warning
            self.critical = critical
            self.minimum = minimum
            self.maximum = maximum
        }

        /// The perfdata text; trailing empty fields are dropped, as the guidelines allow.
        public var text: String {
            let name = label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? label : "'\(label)'"
            var fields = [
                "\(name)=\(Self.number(value))\(unit)", warning?.text ?? "", critical?.text ?? "",
                minimum.map(Self.number) ?? "", maximum.map(Self.number) ?? "",
            ]
            while fields.count > 1, fields.last == "" { fields.removeLast() }
            return fields.joined(separator: ";")
        }

        /// Up to six decimals, no trailing zeros, never an exponent.
        public static func number(_ value: Double) -> String {
            let micro = (value * 1_000_000).rounded()
            guard micro.magnitude < 9e15 else { return String(Int64(value.rounded())) }
            let whole = Int64(micro) / 1_000_000
            var fraction = String(abs(Int64(micro) % 1_000_000))
            fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
            while fraction.last == "0" { fraction.removeLast() }
            let sign = micro < 0 && whole == 0 ? "-" : ""
            return sign + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
        }
    }

    public var service: String
    public var state: State
    /// One line, no `|` (the perfdata separator) and no newline.
    public var text: String
    public var performance: [Datum]

    public init(service: String, state: State, text: String, performance: [Datum] = []) {
        self.service = service
        self.state = state
        self.text = text
        self.performance = performance
    }

    /// The state a measured value is in: CRITICAL beats WARNING beats OK.
    public static func state(of value: Double, warning: MonitoringRange?, critical: MonitoringRange?) -> State {
        if critical?.alerts(value) == true { return .critical }
        if warning?.alerts(value) == true { return .warning }
        return .ok
    }

    /// `SIP WARNING - 1001@pbx registered over wss in 0.61 s|time=0.61s;0.5;1;0;10`.
    public var line: String {
        let clean = text.map { $0 == "|" ? "/" : ($0.isNewline ? " " : $0) }
        var out = "\(service) \(state.name) - " + String(clean)
        if !performance.isEmpty { out += "|" + performance.map(\.text).joined(separator: " ") }
        return out
    }
}

/// A tool that speaks as a monitoring plugin when `flag` is given: usage and configuration
/// errors then print `SERVICE UNKNOWN - reason` on stdout and exit 3 (UNKNOWN), and other
/// errors `SERVICE CRITICAL - reason` with exit 2, instead of the tool's own exit codes
/// (``MonitoringStatus/State/failure(exit:)``).
public struct MonitoringPlugin: Sendable {
    public var flag: String
    public var service: String

    public init(flag: String, service: String) {
        self.flag = flag
        self.service = service
    }

    /// Whether the command line asks for plugin output (the flag before any `--`).
    public func isRequested(in arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--" + flag)
    }

    /// The status line and exit code of an error the tool could not run past.
    public func status(for error: ToolError) -> MonitoringStatus {
        MonitoringStatus(service: service, state: .failure(exit: error.exitCode), text: error.message)
    }
}
