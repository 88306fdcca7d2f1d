import AstraJSON
import HTTP2
import HTTPLite
import JWT
import PushKitEmu
import SIPCore

/// The push providers' HTTP/2 APIs, emulated on loopback TLS listeners so that any gateway — ours
/// or another team's — reaches them exactly as it would reach Apple and Google by pointing its
/// APNs/FCM host here:
///
/// - APNs sandbox and production (`api.sandbox.push.apple.com`, `api.push.apple.com`): one
///   listener each, `POST /3/device/<token>` checked by ``APNsProviderAPI`` against the team's key,
///   answered with Apple's statuses and reasons (`apns-id` on every answer, `apns-unique-id` from
///   the sandbox, `{"reason":…}` and 410's `timestamp`);
/// - FCM HTTP v1 (`fcm.googleapis.com`) with its OAuth2 token endpoint: one listener,
///   ``FCMProviderAPI``.
///
/// Accepted requests go to the device side (``PushEmulator``), which delivers to the emulated
/// phones. Every request is one `provider_request` event (api, environment, status, reason,
/// delivery, token redacted, ms) — never a bearer token or a push token in clear. ``injectFaults``
/// makes the next requests fail with a chosen status (5xx, 429), so a client's retry and back-off
/// can be shown against the same listener.
public actor ProviderEmulatorServer<C: Clock<Duration>> {
    public typealias Emit = @Sendable (WakeEvent) -> Void

    /// Where the listeners are (ports the kernel chose when 0 was asked).
    public struct Ports: Sendable, Hashable {
        public var apnsSandbox: UInt16
        public var apnsProduction: UInt16
        public var fcm: UInt16?
    }

    /// A failure the next requests of one API answer with (tests of retry and back-off).
    public struct Fault: Sendable, Hashable {
        public enum API: String, Sendable { case apns, fcm }
        public var api: API
        public var status: Int
        /// Apple's reason (APNs) or FCM's error code.
        public var reason: String
        public var count: Int
        public init(api: API, status: Int, reason: String, count: Int) {
            self.api = api
            self.status = status
            self.reason = reason
            self.count = count
        }
    }

    public nonisolated let ports: Ports
    public nonisolated let host: String
    /// The emulator's certificate (PEM): what its clients trust.
    public nonisolated let certificatePEM: [UInt8]
    private let sandbox: HTTP2Server
    private let production: HTTP2Server
    private let google: HTTP2Server?
    private let devices: PushEmulator<C>
    private let wallClockMs: @Sendable () -> Int64
    private let emit: Emit
    private var apnsAPI: APNsProviderAPI
    private var fcmAPI: FCMProviderAPI?
    private var faults: [Fault] = []
    /// `--provider-capture`: every accepted push request, as the provider saw it.
    private let capture: ProviderCapture?
    private var startedAt: [Int: Int64] = [:]

    /// The service account whose assertions and project the FCM listener accepts.
    public nonisolated let fcmAccount: FCMServiceAccount?

    /// `apnsKeys`: the team's public keys with their key ids. `fcmAccount`: the service account
    /// whose assertions and project are accepted, made from the FCM listener's bound port (a dev
    /// account's `token_uri` is the emulator's own); nil = no FCM listener.
    public init(
        host: String = "127.0.0.1", apnsSandboxPort: UInt16 = 0, apnsProductionPort: UInt16 = 0,
        fcmPort: UInt16 = 0, identity: TLSServerIdentity, teamID: String, apnsKeys: [JWTKey],
        fcmAccount: ((UInt16) throws(WakeGatewayError) -> FCMServiceAccount)?, topics: Set<String>? = nil,
        devices: PushEmulator<C>, wallClockMs: @escaping @Sendable () -> Int64 = WallClock.nowMs,
        capture: ProviderCapture? = nil, emit: @escaping Emit = { _ in }
    ) throws(WakeGatewayError) {
        self.host = host
        self.capture = capture
        self.devices = devices
        self.wallClockMs = wallClockMs
        self.emit = emit
        certificatePEM = identity.certificatePEM
        apnsAPI = APNsProviderAPI(
            verifier: JWTVerifier(keys: apnsKeys, policy: APNsProviderAPI.providerPolicy(teamID: teamID)), topics: topics)
        // Forward references to self for the handlers: set once the servers exist.
        let box = HandlerBox<C>()
        sandbox = try Self.listen(host, apnsSandboxPort, identity, "APNs sandbox") {
            await box.server?.apns($0, .sandbox) ?? .init(status: 503)
        }
        production = try Self.listen(host, apnsProductionPort, identity, "APNs production") {
            await box.server?.apns($0, .production) ?? .init(status: 503)
        }
        google =
            fcmAccount == nil
            ? nil : try Self.listen(host, fcmPort, identity, "FCM") { await box.server?.fcm($0) ?? .init(status: 503) }
        ports = Ports(apnsSandbox: sandbox.port, apnsProduction: production.port, fcm: google?.port)
        var account: FCMServiceAccount?
        if let google, let fcmAccount { account = try fcmAccount(google.port) }
        self.fcmAccount = account
        if let account {
            do { fcmAPI = try FCMProviderAPI(account: account) } catch {
                throw WakeGatewayError("FCM service account: \(error.detail)")
            }
        }
        box.server = self
    }

    private static func listen(
        _ host: String, _ port: UInt16, _ identity: TLSServerIdentity, _ what: String,
        _ handler: @escaping HTTP2Server.Handler
    ) throws(WakeGatewayError) -> HTTP2Server {
        do {
            return try HTTP2Server(host: host, port: port, identity: identity, maxBodyBytes: 16_384, handler: handler)
        } catch {
            throw WakeGatewayError("\(what) emulator \(host):\(port): \(error.detail)")
        }
    }

    /// The handlers' way back to the actor (weak: the server owns the listeners, not the reverse).
    private final class HandlerBox<Clk: Clock<Duration>>: @unchecked Sendable {
        weak var server: ProviderEmulatorServer<Clk>?
    }

    public func start() async {
        await sandbox.start()
        await production.start()
        await google?.start()
    }

    public func stop() async {
        await sandbox.stop()
        await production.stop()
        await google?.stop()
        capture?.close()
    }

    /// Lines written to the capture file so far (0 without one).
    public var capturedRequests: Int { capture?.lines ?? 0 }

    /// `https://host:port` of each API.
    public nonisolated var apnsSandboxURL: String { "https://\(host):\(ports.apnsSandbox)" }
    public nonisolated var apnsProductionURL: String { "https://\(host):\(ports.apnsProduction)" }
    public nonisolated var fcmURL: String? { ports.fcm.map { "https://\(host):\($0)" } }

    /// Makes the next `fault.count` requests to `fault.api` fail with `fault.status`/`reason`.
    public func injectFaults(_ fault: Fault) { faults.append(fault) }

    /// The listeners' counters, by API: TLS handshakes (one per provider connection), requests.
    public func stats() async -> [String: Int] {
        var out: [String: Int] = [:]
        for (name, server) in [("apns_sandbox", sandbox), ("apns_production", production)] + (google.map { [("fcm", $0)] } ?? []) {
            let s = await server.stats
            out[name + "_tls_handshakes"] = s.tlsHandshakes
            out[name + "_requests"] = s.requests
            out[name + "_connections"] = await server.openConnections
            out[name + "_accept_failures"] = server.acceptFailures
        }
        return out
    }

    private func takeFault(_ api: Fault.API) -> Fault? {
        guard let i = faults.firstIndex(where: { $0.api == api }) else { return nil }
        faults[i].count -= 1
        let fault = faults[i]
        if faults[i].count <= 0 { faults.remove(at: i) }
        return fault
    }

    // MARK: APNs

    func apns(_ request: HTTP2Request, _ environment: APNsEnvironment) async -> HTTP2Response {
        let started = wallClockMs()
        let apnsID = request["apns-id"].flatMap { APNsProviderAPI.isUUID($0) ? $0.uppercased() : nil }
        if let fault = takeFault(.apns) {
            return apnsAnswer(
                fault.status, reason: fault.reason, apnsID: apnsID ?? APNsID.random(), environment: environment, token: nil,
                delivery: nil, started: started)
        }
        switch apnsAPI.decide(request, nowSeconds: started / 1_000) {
        case .refuse(let reason):
            let token = String(request.path.dropFirst("/3/device/".count))
            return apnsAnswer(
                reason.status, reason: reason.rawValue, apnsID: apnsID ?? APNsID.random(), environment: environment,
                token: token.isEmpty ? nil : token, delivery: nil, started: started)
        case .submit(let submission):
            switch await devices.submitAPNs(submission, environment: environment) {
            case .refused(let reason, let timestamp):
                return apnsAnswer(
                    reason.status, reason: reason.rawValue, apnsID: submission.apnsID ?? APNsID.random(),
                    environment: environment, token: submission.token, delivery: nil, started: started,
                    timestampMs: timestamp)
            case .accepted(let id, let delivery):
                capture?.record(provider: "apns", request)
                return apnsAnswer(
                    200, reason: nil, apnsID: id, environment: environment, token: submission.token,
                    delivery: delivery, started: started)
            }
        }
    }

    private func apnsAnswer(
        _ status: Int, reason: String?, apnsID: String, environment: APNsEnvironment, token: String?,
        delivery: PushDelivery?, started: Int64, timestampMs: Int64? = nil
    ) -> HTTP2Response {
        var headers = [HTTP2Field("apns-id", apnsID)]
        if environment == .sandbox { headers.append(HTTP2Field("apns-unique-id", APNsID.random().lowercased())) }
        record(
            "apns", environment: environment.rawValue, status: status, reason: reason, delivery: delivery,
            token: token, started: started)
        guard let reason else { return HTTP2Response(status: 200, headers: headers) }
        var members: JSONObject = ["reason": .string(reason)]
        if let timestampMs { members["timestamp"] = .int(timestampMs) }
        return .json(status, members.jsonText, headers: headers)
    }

    // MARK: FCM

    func fcm(_ request: HTTP2Request) async -> HTTP2Response {
        let started = wallClockMs()
        guard var api = fcmAPI else { return .init(status: 404) }
        let isSend = request.path != api.tokenPath
        if isSend, let fault = takeFault(.fcm) {
            let code = FCMErrorCode(rawValue: fault.reason) ?? .unavailable
            record("fcm", environment: nil, status: fault.status, reason: code.rawValue, delivery: nil, token: nil, started: started)
            var response = FCMProviderAPI.fcmError(code, "injected fault")
            response.status = fault.status
            return response
        }
        let decision = api.decide(request, nowSeconds: started / 1_000, random: KeyMaterial.bytes(32))
        fcmAPI = api
        switch decision {
        case .answer(let response):
            record(
                isSend ? "fcm" : "oauth", environment: nil, status: response.status,
                reason: response.status == 200 ? nil : Self.reason(of: response), delivery: nil, token: nil,
                started: started)
            return response
        case .submit(let submission, let validateOnly):
            if validateOnly {
                return .json(200, (["name": .string("projects/\(submission.project)/messages/fake_message_id")] as JSONObject).jsonText)
            }
            switch await devices.submitFCM(submission) {
            case .refused(let code):
                record("fcm", environment: nil, status: code.status, reason: code.rawValue, delivery: nil, token: submission.token, started: started)
                return FCMProviderAPI.fcmError(code, Self.message(code))
            case .accepted(let name, let delivery):
                capture?.record(provider: "fcm", request)
                record("fcm", environment: nil, status: 200, reason: nil, delivery: delivery, token: submission.token, started: started)
                return .json(200, JSONValue.object(["name": .string(name)]).jsonText)
            }
        }
    }

    static func message(_ code: FCMErrorCode) -> String {
        switch code {
        case .unregistered: "Requested entity was not found."
        case .senderIDMismatch: "SenderId mismatch"
        case .quotaExceeded: "Quota exceeded for the device."
        case .invalidArgument: "Request contains an invalid argument."
        case .unavailable: "The service is currently unavailable."
        case .internal: "Internal error encountered."
        case .thirdPartyAuthError: "Auth error from APNS or Web Push Service"
        }
    }

    /// The `errorCode` (FCM), `error.status` (Google) or `error` (OAuth) of an error answer.
    static func reason(of response: HTTP2Response) -> String {
        guard let json = try? JSONValue.parse(response.body) else { return "" }
        if case .array(let details)? = json["error"]?["details"], case .string(let code)? = details.first?["errorCode"] {
            return code
        }
        if case .string(let status)? = json["error"]?["status"] { return status }
        if case .string(let error)? = json["error"] { return error }
        return ""
    }

    private func record(
        _ api: String, environment: String?, status: Int, reason: String?, delivery: PushDelivery?, token: String?,
        started: Int64
    ) {
        var fields: JSONObject = ["api": .string(api)]
        if let environment { fields["environment"] = .string(environment) }
        fields["status"] = .int(status)
        if let reason { fields["reason"] = .string(reason) }
        if let delivery { fields["delivery"] = .string(delivery.rawValue) }
        if let token { fields["token"] = .string(TokenText.redact(token)) }
        fields["ms"] = .int(wallClockMs() - started)
        emit(WakeEvent("provider_request", fields))
    }

}
