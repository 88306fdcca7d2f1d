import HTTPLite
import Metrics

/// Running as a service (docs/wake-gateway.md "Running it as a service"): the scrape and the
/// drain on SIGTERM.
extension WakeGatewayServer {
    /// `GET /metrics` on the API listener, unauthenticated like any scrape target (bind the API
    /// to loopback or a private interface): Prometheus text 0.0.4, or OpenMetrics 1.0 when the
    /// `Accept` header asks for it. No user, Call-ID or token appears in it.
    func metricsResponse(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: [HTTPHeader("Allow", "GET, HEAD")])
        }
        var byKind: [String: Int] = [:]
        for (source, table) in [("api", store.api), ("rfc8599", store.rfc8599)] {
            for registration in table.values { byKind[registration.platform + "\u{1}" + source, default: 0] += 1 }
        }
        var now = GatewayMetrics.Now(state: writer.stats, stateLocation: state.location)
        // Every platform and source appears, at 0 when empty, so a rate or alert sees the series.
        for platform in ["ios", "android"] {
            for source in ["api", "rfc8599"] {
                now.registrations.append((platform, source, byKind[platform + "\u{1}" + source] ?? 0))
            }
        }
        now.heldCalls = calls.values.filter(\.isHeld).count
        now.draining = draining
        let format = ExpositionFormat.negotiate(accept: request.header("accept"))
        return HTTPResponse(
            status: 200, headers: [HTTPHeader("Content-Type", format.contentType)],
            body: request.method == "HEAD" ? [] : Array(metrics.rendered(now, format: format).utf8))
    }

    /// SIGTERM: stop taking calls (new INVITEs get 503 + Retry-After, so Kamailio's dispatcher
    /// tries the other gateway), let the held ones finish within `within` (released to their
    /// woken phone or failed over), then ``stop()`` answers whatever is still held 503. Returns the
    /// number of calls that were still held at the deadline.
    @discardableResult
    public func drain(within: Duration) async -> Int {
        draining = true
        let held = calls.values.filter(\.isHeld).count
        emit(WakeEvent("draining", [("held_calls", .int(Int64(held)))]))
        let deadline = clock.now.advanced(by: within)
        while calls.values.contains(where: { $0.isHeld }), clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(20))
        }
        let left = calls.values.filter(\.isHeld).count
        await stop()
        return left
    }
}
