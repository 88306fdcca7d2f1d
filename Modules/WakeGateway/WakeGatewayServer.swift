import AstraJSON
import HTTP2
import HTTPLite
import JWT
import PushKitEmu
import SIPCore
import SIPTransport

/// The wake gateway: PushKitEmu's wake decision v2 running for real beside Kamailio
/// (docs/wake-gateway.md, D12).
///
/// - SIP (UDP, one socket): Kamailio relays every INVITE for a local user here; the gateway is a
///   transaction-stateful proxy (RFC 3261 §16) that holds it while the decision runs, then
///   forwards it back to Kamailio marked `X-Astra-Wake: released` (Kamailio does
///   `lookup("location")` + `t_relay`), or answers the caller 480 (failover). Qualifies are
///   OPTIONS to `sip:user@domain` through Kamailio, marked. Kamailio replicates every saved
///   REGISTER here (`t_replicate`), so the gateway sees fresh registrations and RFC 8599
///   `pn-*` Contact parameters.
/// - HTTP: the token endpoints and `POST /api/v1/users/voip-push-ack` (``WakeAPIRequest``).
/// - Pushes: APNs' provider API and FCM HTTP v1 over HTTP/2 (``PushProviders``, one multiplexed
///   connection per provider host) — to Apple and Google, or by default to the emulator in this
///   process (``ProviderEmulatorServer`` on loopback TLS + ``PushEmulator``'s device port for
///   phones).
///
/// Each call is one ``HeldCallMachine`` (the wake decision and SIPDialog's INVITE server and
/// client transactions); the actor routes messages, acks and timers to it and executes its
/// actions (`step`). Every timer — the decision's, Timer A/B/G/H, the linger — is armed
/// on the injected clock.
public actor WakeGatewayServer<C: Clock<Duration>> {
    public typealias Emit = @Sendable (WakeEvent) -> Void
    public typealias Log = @Sendable (String) -> Void

    public struct Ports: Sendable, Hashable {
        public var sip: UInt16
        public var http: UInt16
        /// The emulator's device port (0 when no provider is emulated).
        public var apnsDevice: UInt16
        /// The emulator's provider listeners, when it runs.
        public var emulator: ProviderEmulatorServer<C>.Ports?
    }

    let configuration: WakeGatewayConfiguration
    let clock: C
    let startInstant: C.Instant
    let ids: any IdentifierSource
    let udp: UDPTransport
    /// The emulated push services' device side (phones connect here), when a provider is emulated.
    public nonisolated let devices: PushEmulator<C>?
    /// The emulated provider APIs (HTTP/2), when a provider is emulated.
    public nonisolated let providerEmulator: ProviderEmulatorServer<C>?
    /// The push clients (APNs, FCM).
    public nonisolated let providers: PushProviders
    let emit: Emit
    let log: Log
    nonisolated let sipAddress: SocketAddress
    var http: HTTPServer?
    var receiveTask: Task<Void, Never>?
    /// Each call's armed timers, by the machine's kind (``HeldCallMachine/Timer``).
    var timers: [Int32: [Machine.Timer: ArmedTimer]] = [:]
    var timerGeneration: UInt64 = 0

    var store = PushTokenStore()
    /// Where the registrations and limits persist (``StateStore``), and the one path to it.
    public nonisolated let state: any StateStore
    let writer: StateWriter
    /// Registration expiry per user (ms on the gateway clock), from replicated REGISTERs.
    var bindings: [String: Int64] = [:]
    var lastRegisterMs: [String: Int64] = [:]
    var calls: [Int32: HeldCall] = [:]
    var byUpstreamBranch: [String: Int32] = [:]
    var byDownstreamBranch: [String: Int32] = [:]
    var byQualifyBranch: [String: Int32] = [:]
    var grants: PushGrants
    var rateLimiter: PushRateLimiter
    /// Device tokens APNs answered 429 for, and until when (gateway ms) no push goes to them.
    var apnsBackoff: [String: Int64] = [:]
    /// The provider exchange of each call's push in flight (``push(_:)``).
    var pushTasks: [Int32: Task<Void, Never>] = [:]
    var nextCall: Int32 = 0
    /// What was refused or dropped, by kind (`sip_untrusted`, `auth_refused`, `push_rate_limited`,
    /// `apns_backoff`, …) — bounded: one counter per kind.
    public private(set) var counters: [String: Int] = [:]
    /// `/metrics`: counters and histograms (``GatewayMetrics``).
    var metrics = GatewayMetrics()
    /// Stopping: new INVITEs are answered 503, held ones finish (``drain(within:)``).
    public internal(set) var draining = false

    /// `state`: the store the registrations and limits persist in (memory by default: tests).
    public init(
        configuration: WakeGatewayConfiguration, clock: C, ids: any IdentifierSource = SystemIdentifierSource(),
        state: any StateStore = MemoryStateStore(), emit: @escaping Emit = { _ in }, log: @escaping Log = { _ in }
    ) throws(WakeGatewayError) {
        self.configuration = configuration
        self.state = state
        writer = StateWriter(store: state) { _, error in
            if let error { log("state write failed: \(error.message)") }
        }
        self.clock = clock
        startInstant = clock.now
        self.ids = ids
        self.emit = emit
        self.log = log
        rateLimiter = PushRateLimiter(configuration.pushRateLimit)
        grants = PushGrants(gatewayID: configuration.gatewayID)
        guard let local = SocketAddress(ip: configuration.sipHost, port: configuration.sipPort) else {
            throw WakeGatewayError("bad SIP address \(configuration.sipHost):\(configuration.sipPort)")
        }
        do {
            udp = try UDPTransport(local: local, log: TransportLog { _, line in log(line) })
        } catch {
            throw WakeGatewayError("SIP UDP \(local): \(error)")
        }
        sipAddress = udp.local
        let (devices, emulator, providers) = try Self.pushSide(configuration, clock: clock, log: log, emit: emit)
        self.devices = devices
        providerEmulator = emulator
        self.providers = providers
    }

    /// Starts the HTTP API, the APNs device listener and the SIP receive loop.
    public func start() async throws(WakeGatewayError) -> Ports {
        try await restoreState()
        let server: HTTPServer
        do {
            server = try HTTPServer(
                host: configuration.httpHost, port: configuration.httpPort, connections: configuration.httpLimits
            ) { [weak self] request in
                guard let self else { return .text(503, "gateway stopping") }
                return await self.handleHTTP(request)
            }
        } catch {
            throw WakeGatewayError("HTTP \(configuration.httpHost):\(configuration.httpPort): \(error)")
        }
        http = server
        await server.start()
        await devices?.startAccepting()
        await providerEmulator?.start()
        let udp = udp
        receiveTask = Task { [weak self] in
            for await received in udp.events {
                guard let self else { return }
                await self.handle(received)
            }
        }
        let ports = Ports(
            sip: sipAddress.port, http: server.port, apnsDevice: devices?.devicePort ?? 0, emulator: providerEmulator?.ports)
        emit(
            WakeEvent(
                "listening",
                [
                    ("sip", .string(sipAddress.description)), ("http_host", .string(configuration.httpHost)),
                    ("http_port", .int(Int64(ports.http))),
                    ("apns_device_host", .string(configuration.apnsDeviceHost)),
                    ("apns_device_port", .int(Int64(ports.apnsDevice))),
                    ("kamailio", .string(configuration.kamailio.description)),
                    ("trust", .string(configuration.trustedSources.map(\.description).joined(separator: ","))),
                    ("auth", .string(configuration.auth.map { $0.verifier.algorithms.map(\.rawValue).joined(separator: ",") } ?? "none")),
                    ("ack_window_ms", .int(configuration.ackWindowMs)),
                    ("register_wait_ms", .int(configuration.registerWaitMs)),
                    ("qualify_timeout_ms", .int(configuration.qualifyTimeoutMs)),
                    ("ring_timeout_ms", .int(configuration.ringTimeoutMs)),
                    ("apns_delay_ms", .int(configuration.apnsDelayMs)),
                    ("gone_notice", .bool(configuration.goneNotice)),
                    ("state", .string(StateStores.redactedURL(state.location))),
                ] + providerFields()))
        return ports
    }

    /// Stops every listener and timer; held calls are answered 503 first.
    public func stop() async {
        for id in calls.values.filter(\.isHeld).map(\.id).sorted() {
            await step(id) { $0.drain() }
        }
        receiveTask?.cancel()
        for armed in timers.values.flatMap(\.values) { armed.task.cancel() }
        timers.removeAll()
        for task in pushTasks.values { task.cancel() }
        pushTasks.removeAll()
        await http?.stop()
        await writer.flush()
        await state.close()
        await providers.close()
        await providerEmulator?.stop()
        await devices?.stop()
        await udp.close()
    }

    /// Milliseconds since start on the gateway clock.
    var nowMs: Int64 {
        let d = startInstant.duration(to: clock.now)
        return d.components.seconds * 1_000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    /// The push registrations (for tests and status).
    public var tokens: PushTokenStore { store }

    /// Whether `user` has an unexpired binding the gateway heard of.
    func registrationLive(_ user: String) -> Bool { (bindings[user] ?? Int64.min) > nowMs }

    // MARK: HTTP

    func count(_ kind: String) { counters[kind, default: 0] += 1 }

    /// Live state held now, by kind — what a long run must keep flat (the soak and RSS tests).
    /// `retransmissions`: every armed per-call timer; `reap_timers`: the finished calls' lingers;
    /// `decisions`: the calls whose wake decision is not over yet.
    public var stateCounts: [String: Int] {
        let armed = timers.values.reduce(0) { $0 + $1.count }
        let lingering = timers.values.filter { $0[.linger] != nil }.count
        let deciding = calls.values.filter { !$0.machine.decision.isOver && $0.machine.decision.state != .answered }
        return [
            "calls": calls.count, "upstream_branches": byUpstreamBranch.count,
            "downstream_branches": byDownstreamBranch.count, "qualify_branches": byQualifyBranch.count,
            "push_grants": grants.count, "retransmissions": armed, "reap_timers": lingering,
            "decisions": deciding.count,
            "rate_buckets": rateLimiter.trackedUsers, "apns_backoff": apnsBackoff.count, "bindings": bindings.count,
        ]
    }

    // MARK: HTTP

    /// The token endpoints authenticate before anything else (a stranger learns nothing, not even
    /// whether the body was well-formed), then parse, then authorise the `asterisk_endpoint`.
    func handleHTTP(_ request: HTTPRequest) async -> HTTPResponse {
        if request.path == "/metrics" { return metricsResponse(request) }
        var principal: TokenAPIAuth.Principal?
        if WakeAPIRequest.requiresAuthentication(request.path) {
            guard let auth = configuration.auth else {
                return refuse(.invalid(.algorithmNotAllowed), request)
            }
            switch auth.authenticate(request, nowSeconds: WallClock.nowMs() / 1_000) {
            case .failure(let refusal): return refuse(refusal, request)
            case .success(let p): principal = p
            }
        }
        switch WakeAPIRequest.parse(request) {
        case .reject(let response):
            return response
        case .request(.ack(let pushID)):
            if let owner = PushGrants.gateway(of: pushID), owner != configuration.gatewayID {
                return await forwardAck(pushID, to: owner, forwarded: request.header(Self.forwardedHeader) != nil)
            }
            return await acked(pushID)
        case .request(let other):
            guard let principal, let endpoint = other.endpoint, principal.may(manage: endpoint) else {
                return refuse(.otherEndpoint, request)
            }
            var sealing: PushSealing?
            if case .registerToken(let endpoint, _, _, _, _, let offer) = other {
                switch await checkSealing(endpoint, offer) {
                case .failure(let refused): return refused.response
                case .success(let checked): sealing = checked
                }
            }
            let response = await applyDurably(other, sealing: sealing)
            if case .registerToken(let endpoint, let token, let environment, _, _, _) = other, response.status == 200 {
                emit(
                    WakeEvent(
                        "token_registered",
                        [
                            ("user", .string(endpoint)), ("token", .string(TokenText.redact(token))),
                            ("environment", .string(environment.rawValue)),
                            ("by", .string(principal.orgAdmin ? "org_admin" : "user")),
                            ("sealed", .bool(sealing != nil)),
                        ]))
            } else if case .deleteToken(let endpoint) = other, response.status == 200 {
                emit(WakeEvent("token_deleted", [("user", .string(endpoint))]))
            } else if case .stopGrant(let endpoint) = other, response.status == 200 {
                count("grants_stopped")
                emit(WakeEvent("grant_stopped", [("user", .string(endpoint))]))
            }
            return response
        }
    }

    /// A refused token request: counted, one event (the reason, never the token), the answer.
    func refuse(_ refusal: TokenAPIAuth.Refusal, _ request: HTTPRequest) -> HTTPResponse {
        count("auth_refused")
        metrics.refused(reason: refusal.reason)
        emit(
            WakeEvent(
                "auth_refused",
                [
                    ("method", .string(request.method)), ("path", .string(request.path)),
                    ("reason", .string(refusal.reason)), ("status", .int(Int64(refusal.response.status))),
                ]))
        return refusal.response
    }

    /// `POST /voip-push-ack`: the push-id is redeemed once (``PushGrants``); an unknown, replayed or
    /// expired id is 404 and releases nothing. The answer's `call_active` says whether the held
    /// call is still there for the phone (``HeldCallMachine/isActive``): not cancelled by the
    /// caller, not failed over, not ended by a final other than the phone's 2xx — so a phone woken
    /// too late ends its CallKit placeholder at once (docs/push-wake-rules.md R5).
    func acked(_ pushID: String) async -> HTTPResponse {
        guard let id = grants.redeem(pushID, nowMs: nowMs), var call = calls[id] else {
            count("ack_unknown")
            return .json(404, "{\"error\":\"unknown push_id\"}")
        }
        let now = nowMs
        call.ackMs = now
        calls[id] = call
        emit(
            WakeEvent(
                "ack",
                [
                    ("call", .int(Int64(id))), ("push_id", .string(PushGrants.redacted(pushID))),
                    ("user", .string(call.user)), ("since_push_ms", .int(now - (call.pushSentMs ?? now))),
                    ("since_invite_ms", .int(now - call.arrivedMs)),
                ]))
        // The REGISTER may have overtaken the ack (different paths): the machine is fed it now.
        let overtaken = lastRegisterMs[call.user].map { seen in call.pushSentMs.map { seen >= $0 } ?? false } ?? false
        await step(id) { $0.pushAcked(registeredSincePush: overtaken) }
        let active = calls[id]?.machine.isActive ?? false
        return .json(200, (["acked": true, "call_active": .bool(active)] as JSONObject).jsonText)
    }
}
