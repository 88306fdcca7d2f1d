import Metrics
import SIPCore

/// The metric families of `astra-register --monitor` and how a line's health lands in them.
///
/// Names in base units with the conventional suffixes, in the probe style
/// (`probe_success`, `probe_ssl_earliest_cert_expiry` as a Unix time): every series of a line
/// carries `line` (its name from the lines file), `transport` and `server` (`host:port`) and
/// nothing else — never a password, Call-ID or user-supplied free text. Failures carry one more
/// label, `cause`, from the fixed ``FailureCause`` set; every cause of a line is exported from
/// its start at 0, so `increase()` sees the first failure too.
public enum MonitorMetrics {
    public static let up = "sip_line_up"
    public static let registered = "sip_line_registered"
    public static let registerDuration = "sip_register_duration_seconds"
    public static let optionsDuration = "sip_options_duration_seconds"
    public static let failures = "sip_line_failures"
    public static let certificateExpiry = "sip_tls_certificate_expiry_timestamp_seconds"
    public static let lines = "sip_monitor_lines"
    public static let build = "sip_monitor_build"

    /// The empty families, in exposition order.
    public static func families() -> MetricSet {
        var set = MetricSet([
            MetricFamily(
                name: up, help: "1 when the line's flow is up and its registrar answered the last OPTIONS.",
                kind: .gauge),
            MetricFamily(
                name: registered, help: "1 while the registrar holds the line's binding (a 2xx to REGISTER).",
                kind: .gauge),
            MetricFamily(
                name: registerDuration, help: "Registration rounds, first REGISTER to its 2xx, challenges included.",
                kind: .histogram(bounds: Histogram.sipLatencyBounds), unit: "seconds"),
            MetricFamily(
                name: optionsDuration, help: "OPTIONS to the registrar, sent to final response.",
                kind: .histogram(bounds: Histogram.sipLatencyBounds), unit: "seconds"),
            MetricFamily(name: failures, help: "Failed checks of the line by cause.", kind: .counter),
            MetricFamily(
                name: certificateExpiry,
                help: "notAfter of the server certificate of the line's last TLS connection, as a Unix time.",
                kind: .gauge, unit: "seconds"),
            MetricFamily(name: lines, help: "Lines in the monitor's lines file.", kind: .gauge),
            MetricFamily(name: build, help: "The monitor's build.", kind: .info),
        ])
        set.update(build) { $0.set(["version": AstraVersion.current], 1) }
        return set
    }

    /// The labels of every series of one line.
    public static func labels(line name: String, transport: String, server: String) -> MetricLabels {
        ["line": name, "transport": transport, "server": server]
    }

    /// Creates a line's series: gauges at 0, every failure cause at 0, empty histograms.
    public static func add(_ labels: MetricLabels, to set: inout MetricSet) {
        set.update(up) { $0.set(labels, 0) }
        set.update(registered) { $0.set(labels, 0) }
        set.update(registerDuration) { $0.touch(labels) }
        set.update(optionsDuration) { $0.touch(labels) }
        set.update(failures) { family in
            for cause in FailureCause.allCases { family.touch(labels.adding(cause: cause)) }
        }
    }

    /// Removes every series of a line (it left the lines file).
    public static func remove(_ labels: MetricLabels, from set: inout MetricSet) {
        let line = labels["line"]
        set.removeSeries { $0["line"] == line }
    }

    /// The line's gauges from its health.
    public static func publish(_ health: LineHealth, _ labels: MetricLabels, to set: inout MetricSet) {
        set.update(up) { $0.set(labels, health.up ? 1 : 0) }
        set.update(registered) { $0.set(labels, health.registered ? 1 : 0) }
        if let notAfter = health.certificateNotAfter {
            set.update(certificateExpiry) { $0.set(labels, Double(notAfter)) }
        }
    }

    /// What one health action changes in the metrics (timers and SIP actions change nothing).
    public static func apply(_ action: LineHealth.Action, _ labels: MetricLabels, to set: inout MetricSet) {
        switch action {
        case .failure(let cause): set.update(failures) { $0.increment(labels.adding(cause: cause)) }
        case .observeRegister(let d): set.update(registerDuration) { $0.observe(labels, d.seconds) }
        case .observeOptions(let d): set.update(optionsDuration) { $0.observe(labels, d.seconds) }
        case .sendPing, .schedulePing, .schedulePingTimeout, .cancelPingTimeout, .cancelPings, .keepAliveFailed, .keepAliveRecovered: break
        }
    }
}

extension MetricLabels {
    fileprivate func adding(cause: FailureCause) -> MetricLabels {
        var copy = self
        copy["cause"] = cause.rawValue
        return copy
    }
}

extension Duration {
    /// Seconds as a double (attoseconds kept to the nanosecond).
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto / 1_000_000_000) / 1e9
    }
}
