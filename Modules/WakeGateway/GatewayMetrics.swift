import Metrics

/// What `GET /metrics` tells a scraper about the gateway (docs/wake-gateway.md "Metrics"), as
/// pure values (module `Metrics`): counters and histograms updated as events happen, gauges
/// filled in from the gateway's tables when a scrape renders. Names in base units, counters
/// without `_total` (the renderer adds it), labels from closed sets only — platform, source,
/// provider, outcome, reason — never a user, a Call-ID or a token.
struct GatewayMetrics: Sendable {
    /// Push sent → the phone's 180/183: what a woken phone costs the caller (s).
    static let pushToRingBounds: [Double] = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10]
    /// INVITE held → failover (s): the ack window and register wait show up here.
    static let failoverBounds: [Double] = [0.05, 0.1, 0.5, 1, 2, 4, 6, 8, 10, 20, 40]
    /// One state-store transaction (s): an fsync on a disk, a round trip to a server.
    static let stateBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

    private(set) var set = MetricSet([
        MetricFamily(
            name: "wakegw_pushes", help:
                "Pushes by provider (apns, fcm) and outcome (accepted, rejected, rate_limited, backoff, not_sealed, grant_expired, seal_failed).",
            kind: .counter),
        MetricFamily(
            name: "wakegw_push_to_ring_seconds", help: "From the push sent to the woken phone's 180/183.",
            kind: .histogram(bounds: pushToRingBounds), unit: "seconds"),
        MetricFamily(
            name: "wakegw_failover_seconds", help: "From the INVITE held to its failover, by reason.",
            kind: .histogram(bounds: failoverBounds), unit: "seconds"),
        MetricFamily(name: "wakegw_auth_refusals", help: "Token API requests refused, by reason.", kind: .counter),
        MetricFamily(
            name: "wakegw_grant_refusals", help: "Call grants refused (token API and RFC 8599), by reason.",
            kind: .counter),
        MetricFamily(
            name: "wakegw_push_payloads", help: "Pushes sent by payload (sealed: the caller under the call key; clear).",
            kind: .counter),
    ])

    mutating func pushed(provider: String, outcome: String) {
        set.update("wakegw_pushes") { $0.increment(["provider": provider, "outcome": outcome]) }
    }

    mutating func rang(afterPushSeconds seconds: Double) {
        set.update("wakegw_push_to_ring_seconds") { $0.observe([:], seconds) }
    }

    mutating func failedOver(reason: String, afterSeconds seconds: Double) {
        set.update("wakegw_failover_seconds") { $0.observe(["reason": reason], seconds) }
    }

    mutating func refused(reason: String) {
        set.update("wakegw_auth_refusals") { $0.increment(["reason": reason]) }
    }

    mutating func grantRefused(reason: String) {
        set.update("wakegw_grant_refusals") { $0.increment(["reason": reason]) }
    }

    mutating func payload(sealed: Bool) {
        set.update("wakegw_push_payloads") { $0.increment(["payload": sealed ? "sealed" : "clear"]) }
    }

    /// The gauges of this moment, added to a copy of the counters and histograms.
    struct Now: Sendable {
        /// (platform, source) → registrations.
        var registrations: [(platform: String, source: String, count: Int)] = []
        var heldCalls = 0
        var draining = false
        var state: StateWriter.Stats
        var stateLocation: String
    }

    func rendered(_ now: Now, format: ExpositionFormat) -> String {
        var set = set
        var registrations = MetricFamily(
            name: "wakegw_push_registrations", help: "Push registrations held, by platform and source (api, rfc8599).",
            kind: .gauge)
        for entry in now.registrations {
            registrations.set(["platform": entry.platform, "source": entry.source], Double(entry.count))
        }
        set.register(registrations)
        var held = MetricFamily(name: "wakegw_held_calls", help: "INVITEs held while their phone is woken.", kind: .gauge)
        held.set([:], Double(now.heldCalls))
        set.register(held)
        var draining = MetricFamily(
            name: "wakegw_draining", help: "1 while the gateway stops: new calls refused, held ones answered.", kind: .gauge)
        draining.set([:], now.draining ? 1 : 0)
        set.register(draining)
        set.register(now.state.latency)
        var errors = MetricFamily(
            name: "wakegw_state_store_errors", help: "State-store transactions that failed.", kind: .counter)
        errors.increment([:], by: Double(now.state.failures))
        set.register(errors)
        var info = MetricFamily(name: "wakegw_state_store", help: "The state store in use.", kind: .info)
        info.set(["kind": Self.kind(of: now.stateLocation)], 1)
        set.register(info)
        return set.render(format)
    }

    /// `memory`, `sqlite` or `postgresql`: the scheme only (a path or host is not a label).
    static func kind(of location: String) -> String {
        let scheme = String(location.prefix { $0 != ":" })
        return scheme == "postgres" ? "postgresql" : scheme  // libpq takes both names
    }
}
