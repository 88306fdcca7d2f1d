import SIPCore

/// One line's registration (RFC 3261 §10.2) as a pure state machine: it builds each REGISTER,
/// answers digest challenges (§22), retries with Min-Expires on 423 (§10.2.8), schedules the
/// refresh, recovers the flow (RFC 5626 §4.4) and unregisters on stop. The shell runs one
/// non-INVITE client transaction per ``Action/send(_:)`` and feeds back the final response.
public struct RegistrationClient: Sendable {
    public enum State: Sendable, Hashable {
        /// Not started.
        case idle
        /// A REGISTER is in flight (first registration, refresh or retry).
        case registering
        /// The binding is in place for `expires` seconds; the refresh timer runs.
        case registered(expires: UInt32)
        /// A failure happened; the retry timer runs (keep mode only).
        case waitingToRetry
        /// The flow died (RFC 5626 §4.4); waiting for the transport to bring it back.
        case waitingForFlow
        /// A REGISTER with expiry 0 is in flight.
        case unregistering
        /// The binding was removed, or never made; nothing more happens.
        case stopped
        /// One-shot mode: the registration failed for good.
        case failed(RegistrationFailure)
    }

    public enum Timer: Sendable, Hashable {
        /// Re-register before the binding expires.
        case refresh
        /// Try again after a failure.
        case retry
    }

    public enum Action: Sendable {
        /// Start a non-INVITE client transaction for this REGISTER.
        case send(SIPRequest)
        case startTimer(Timer, Duration)
        case cancelTimer(Timer)
        case event(RegistrationEvent)
    }

    public private(set) var state: State = .idle
    public let settings: RegistrationSettings
    var builder: RegisterRequestBuilder
    var digest: DigestClientState?
    let ids: any IdentifierSource
    var binding: LocalBinding?
    var expires: UInt32
    var attempt = 0
    var consecutiveFailures = 0
    var hasBeenRegistered = false
    var lastAlgorithm: String?
    var triedMinExpires: Set<UInt32> = []
    /// Load mode (decision D13): each REGISTER is rendered straight to wire bytes — the bytes
    /// `SIPRequest.serialized()` gives on the normal path (golden-tested) — and waits in
    /// ``wireRequest`` instead of travelling in a ``Action/send(_:)``. Same machine otherwise.
    var rendersWire = false
    /// The REGISTER produced by the last step in wire mode; the load engine takes it.
    var wireRequest: [UInt8]?

    /// - Parameters:
    ///   - aor: the address of record (`sip:user@domain`), used in To and From.
    ///   - registrar: the Request-URI (`sip:domain`, §10.2).
    ///   - displayName: the display name in To and From, if any.
    ///   - credentials: digest credentials, or nil when the line has no password.
    ///   - settings: expiry, refresh and retry policy, instance ID, push parameters, User-Agent.
    ///   - ids: Call-ID, tags and branches (a seeded source gives byte-stable messages).
    public init(aor: SIPURI, registrar: SIPURI, displayName: String? = nil, credentials: DigestCredentials?,
                settings: RegistrationSettings = RegistrationSettings(), ids: any IdentifierSource) {
        self.settings = settings
        self.ids = ids
        self.builder = RegisterRequestBuilder(aor: aor, registrar: registrar, displayName: displayName,
                                              settings: settings, ids: ids)
        self.digest = credentials.map { DigestClientState(credentials: $0) }
        self.expires = settings.clampedExpires
    }

    /// The Call-ID shared by every REGISTER of this registration.
    public var callID: String { builder.callID }

    /// Registers over the flow described by `binding`.
    public mutating func start(binding: LocalBinding) -> [Action] {
        guard state == .idle else { return [] }
        self.binding = binding
        return sendRegister()
    }

    /// The final (or provisional, ignored) response to the REGISTER in flight.
    /// Answers to an earlier REGISTER than the latest one (its CSeq is lower) are ignored.
    public mutating func receive(_ response: SIPResponse) -> [Action] {
        guard response.statusCode >= 200 else { return [] }
        if let cseq = try? response.headers.cseq(), cseq.sequence != builder.cseq { return [] }
        switch state {
        case .registering:
            return registeringReceived(response)
        case .unregistering:
            state = .stopped
            return [.event(.unregistered)]
        case .idle, .registered, .waitingToRetry, .waitingForFlow, .stopped, .failed:
            return []
        }
    }

    /// The REGISTER's transaction ended without a final response (Timer F or transport error).
    /// - Parameters:
    ///   - end: how the transaction ended (timeout or transport error).
    ///   - cseq: the CSeq of the REGISTER whose transaction ended; an older one is ignored.
    public mutating func transactionFailed(_ end: TransactionEnd, cseq: UInt32? = nil) -> [Action] {
        if let cseq, cseq != builder.cseq { return [] }
        switch state {
        case .registering:
            return fail(end == .timeout ? .timeout : .transportError)
        case .unregistering:
            state = .stopped
            return [.event(.unregistered)]
        case .idle, .registered, .waitingToRetry, .waitingForFlow, .stopped, .failed:
            return []
        }
    }

    public mutating func timerFired(_ timer: Timer) -> [Action] {
        switch (state, timer) {
        case (.registered, .refresh), (.waitingToRetry, .retry):
            return sendRegister()
        default:
            return []
        }
    }

    /// The transport reported the flow dead (RFC 5626 §4.4). Until ``flowRecovered(binding:)``
    /// nothing is sent.
    public mutating func flowLost() -> [Action] {
        switch state {
        case .registering, .registered, .waitingToRetry:
            state = .waitingForFlow
            return [.cancelTimer(.refresh), .cancelTimer(.retry), .event(.flowLost)]
        case .idle, .waitingForFlow, .unregistering, .stopped, .failed:
            return []
        }
    }

    /// The transport has a new flow: register on it at once (RFC 5626 §4.4.1).
    public mutating func flowRecovered(binding: LocalBinding) -> [Action] {
        self.binding = binding
        guard state == .waitingForFlow else { return [] }
        return sendRegister()
    }

    /// Unregisters (REGISTER with expiry 0 for our Contact only) when a binding may exist.
    public mutating func stop() -> [Action] {
        switch state {
        case .registered, .registering:
            state = .unregistering
            var actions: [Action] = [.cancelTimer(.refresh), .cancelTimer(.retry)]
            actions += makeRequest(expires: 0)
            return actions
        case .waitingToRetry, .waitingForFlow, .idle:
            state = .stopped
            return [.cancelTimer(.refresh), .cancelTimer(.retry)]
        case .unregistering, .stopped, .failed:
            return []
        }
    }

    // MARK: - Internals

    private mutating func sendRegister() -> [Action] {
        state = .registering
        attempt += 1
        return makeRequest(expires: expires)
    }

    private mutating func makeRequest(expires requested: UInt32) -> [Action] {
        guard let binding else { return fail(.transportError) }
        var actions: [Action] = []
        if rendersWire {
            var lines: [UInt8] = []
            if digest != nil {
                do {
                    try digest!.appendAuthorizationLines(method: "REGISTER", uri: builder.registrarText, to: &lines)
                } catch {
                    return fail(.cannotAuthenticate(status: 0, reason: "", detail: error.description))
                }
            }
            wireRequest = builder.nextWire(binding: binding, expires: requested, ids: ids, authorizationLines: lines)
        } else {
            var authorization: [DigestHeaderField] = []
            if digest != nil {
                do {
                    authorization = try digest!.authorizationHeaders(method: "REGISTER", uri: builder.registrarText)
                } catch {
                    return fail(.cannotAuthenticate(status: 0, reason: "", detail: error.description))
                }
            }
            actions.append(.send(builder.next(binding: binding, expires: requested, ids: ids,
                                              authorization: authorization)))
        }
        if requested > 0 { actions.append(.event(.registering(expires: requested, attempt: attempt))) }
        return actions
    }

    // MARK: - Small state helpers used by the response handling

    var currentExpires: UInt32 { expires }
    var currentAlgorithm: String? { lastAlgorithm }
    var wasRegistered: Bool { hasBeenRegistered }
    var hasCredentials: Bool { digest != nil }
    var currentBinding: LocalBinding? { binding }
    var builderUser: String? { builder.aor.user }

    mutating func markRegistered(expires granted: UInt32) {
        state = .registered(expires: granted)
        hasBeenRegistered = true
        consecutiveFailures = 0
        attempt = 0
    }

    mutating func answer(challenges: [String], kind: DigestChallengeKind) -> DigestRetryDecision {
        digest!.receive(challenges: challenges, kind: kind)
    }

    mutating func noteAlgorithm(_ algorithm: String?) { lastAlgorithm = algorithm }

    /// The algorithm the digest state chose for the challenge just answered.
    var digestAlgorithm: String? { digest?.algorithms.last?.token }

    func alreadyTried(minExpires: UInt32) -> Bool { triedMinExpires.contains(minExpires) }

    mutating func raiseExpires(to minimum: UInt32) {
        triedMinExpires.insert(minimum)
        expires = minimum
    }

    /// A new REGISTER in the same round (after a challenge or a 423).
    mutating func resend() -> [Action] {
        attempt += 1
        return makeRequest(expires: expires)
    }

    mutating func enterFailed(_ failure: RegistrationFailure) { state = .failed(failure) }

    mutating func enterWaitingToRetry() {
        state = .waitingToRetry
        attempt = 0
    }

    /// RFC 5626 §4.5: base · 2^failures, capped, then scaled by a random 50–100 %.
    mutating func nextRetryDelay() -> Duration {
        let exponent = min(consecutiveFailures, 20)
        consecutiveFailures += 1
        let uncapped = settings.retryBase * (1 << exponent)
        let capped = min(uncapped, settings.retryMaximum)
        let fraction = 0.5 + Double(ids.nextUInt64() % 1001) / 2000.0
        return capped * fraction
    }
}
