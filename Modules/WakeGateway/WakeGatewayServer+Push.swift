import AstraJSON
import HTTP2
import JWT
import PushKitEmu
import SIPCore

/// The wake decision's push (step 2) over the real provider APIs, and how the push side is built.
extension WakeGatewayServer {
    // MARK: Building the push side

    /// The device emulator, the provider emulator and the push clients for `configuration`: the
    /// emulator runs when any provider URL is left to it, with dev credentials made here when
    /// none are given (an ephemeral P-256 `.p8` and an RSA service account — accepted by the
    /// emulator only, never by Apple or Google), and the clients trust its certificate.
    static func pushSide(
        _ configuration: WakeGatewayConfiguration, clock: C, log: @escaping Log, emit: @escaping Emit
    ) throws(WakeGatewayError) -> (PushEmulator<C>?, ProviderEmulatorServer<C>?, PushProviders) {
        let emulated = configuration.usesEmulator
        let apnsKey: JWTKey
        if let given = configuration.apnsKey {
            apnsKey = given
        } else {
            apnsKey = try DevCredentials.apnsKey()
        }
        guard configuration.apnsKey != nil || emulated && configuration.apnsSandboxURL == nil
            && configuration.apnsProductionURL == nil
        else { throw WakeGatewayError("a real APNs host needs the team's key (--apns-key-file, --apns-key-id)") }
        guard configuration.fcmAccount != nil || configuration.fcmURL == nil else {
            throw WakeGatewayError("a real FCM host needs the service account (--fcm-service-account)")
        }
        guard configuration.providerCapture == nil || emulated else {
            throw WakeGatewayError("--provider-capture needs the emulator (a provider left to it)")
        }
        var devices: PushEmulator<C>?
        var emulator: ProviderEmulatorServer<C>?
        if emulated {
            do {
                devices = try PushEmulator(
                    host: configuration.apnsDeviceHost, devicePort: configuration.apnsDevicePort,
                    delayMs: configuration.apnsDelayMs, limits: configuration.apnsDeviceLimits, clock: clock, log: log,
                    emit: emit)
            } catch {
                throw WakeGatewayError(
                    "push device port \(configuration.apnsDeviceHost):\(configuration.apnsDevicePort): \(error)")
            }
            let identity: TLSServerIdentity
            do {
                if let cert = configuration.emulatorCertFile, let key = configuration.emulatorKeyFile {
                    identity = try TLSServerIdentity.files(certificate: cert, key: key)
                } else {
                    identity = try TLSServerIdentity.ephemeral(ipAddresses: [configuration.emulatorHost])
                }
            } catch { throw WakeGatewayError("emulator certificate: \(error.detail)") }
            let given = configuration.fcmAccount
            let host = configuration.emulatorHost
            emulator = try ProviderEmulatorServer(
                host: host, apnsSandboxPort: configuration.apnsEmulatorPort,
                apnsProductionPort: configuration.apnsEmulatorProductionPort, fcmPort: configuration.fcmEmulatorPort,
                identity: identity, teamID: configuration.apnsTeamID, apnsKeys: [try Self.publicHalf(apnsKey)],
                fcmAccount: { port throws(WakeGatewayError) -> FCMServiceAccount in
                    if let given { return given }
                    return try Self.devAccount(host: host, port: port)
                },
                devices: devices!, capture: try configuration.providerCapture.map(ProviderCapture.init(path:)),
                emit: emit)
        }
        var settings = PushProviderSettings(
            apnsSandboxURL: configuration.apnsSandboxURL ?? emulator!.apnsSandboxURL,
            apnsProductionURL: configuration.apnsProductionURL ?? emulator!.apnsProductionURL, apnsKey: apnsKey,
            teamID: configuration.apnsTeamID)
        settings.fcmURL = configuration.fcmURL ?? emulator?.fcmURL
        settings.fcmAccount = configuration.fcmAccount ?? emulator?.fcmAccount
        settings.caFile = configuration.providerCAFile
        let allEmulated =
            configuration.apnsSandboxURL == nil && configuration.apnsProductionURL == nil && configuration.fcmURL == nil
        if allEmulated, configuration.providerCAFile == nil { settings.caPEM = emulator?.certificatePEM }
        settings.requestTimeoutMs = Int(configuration.providerTimeoutMs)
        return (devices, emulator, try PushProviders(settings: settings))
    }

    static func publicHalf(_ key: JWTKey) throws(WakeGatewayError) -> JWTKey {
        do { return try key.publicHalf() } catch { throw WakeGatewayError("APNs key: \(error.detail)") }
    }

    /// A dev service account whose `token_uri` is the emulator's.
    static func devAccount(host: String, port: UInt16) throws(WakeGatewayError) -> FCMServiceAccount {
        FCMServiceAccount(
            projectID: "astra-emulator", clientEmail: "astra-wakegw@astra-emulator.iam.gserviceaccount.com",
            tokenURI: "https://\(host):\(port)/token", key: try DevCredentials.fcmKey())
    }

    /// The `listening` event's provider fields.
    func providerFields() -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("apns_sandbox_url", .string(providers.settings.apnsSandboxURL)),
            ("apns_production_url", .string(providers.settings.apnsProductionURL)),
            ("fcm_url", .string(providers.settings.fcmURL ?? "")),
            ("apns_team_id", .string(providers.settings.teamID)),
            ("apns_key_id", .string(providers.settings.apnsKey.keyID ?? "")),
            ("fcm_project", .string(providers.settings.fcmAccount?.projectID ?? "")),
        ]
        if let ports = providerEmulator?.ports {
            fields.append(("apns_emulator_port", .int(Int64(ports.apnsSandbox))))
            fields.append(("apns_emulator_production_port", .int(Int64(ports.apnsProduction))))
            fields.append(("fcm_emulator_port", .int(Int64(ports.fcm ?? 0))))
        }
        return fields
    }

    // MARK: Push (decision step 2)

    /// Sends the wake push for call `id` — APNs for an iOS token, FCM for an Android one. The
    /// push-id is a fresh single-use grant (``PushGrants``), valid for the ack window. Refused at
    /// once, without a request, when the user is over the rate limit or the token is in its 429
    /// back-off (the answer is then non-nil). Otherwise the provider exchange runs in a task of its
    /// own and this returns nil: a provider that takes its time (a TLS handshake, retries) must
    /// never hold the SIP receive loop — the caller's CANCEL, other calls, the REGISTERs — behind
    /// it. The provider's refusal comes back to the call's machine as an event
    /// (``HeldCallMachine/pushRefused()``), which fails the call over at once (decision D34).
    func push(_ id: Int32) -> APNsRejection? {
        guard var call = calls[id], let registration = store.registration(for: call.user) else { return .unregistered }
        let now = nowMs
        if let until = apnsBackoff[registration.token], until > now {
            limited(id, call, why: "apns_backoff")
            return .tooManyRequests
        }
        if apnsBackoff.removeValue(forKey: registration.token) != nil {
            writer.enqueue(.deleteBackoff(token: registration.token))
        }
        let sealing = configuration.sealed == .off ? nil : registration.sealing
        if sealing == nil, configuration.sealed == .required {
            limited(id, call, why: "not_sealed")
            return .unregistered
        }
        if let sealing, sealing.isStopped {
            limited(id, call, why: "grant_stopped")
            return .unregistered
        }
        if let sealing, !sealing.grantLive(nowSeconds: WallClock.nowMs() / 1_000) {
            limited(id, call, why: "grant_expired")
            return .unregistered
        }
        guard rateLimiter.allow(call.user, nowMs: now) else {
            limited(id, call, why: "user_rate")
            return .tooManyRequests
        }
        saveBucket(call.user)
        if let old = call.pushID { grants.revoke(old) }
        let pushID = grants.issue(call: id, expiresMs: now + configuration.ackWindowMs)
        guard let payload = payload(call, sealing, pushID: pushID, nowMs: now) else {
            grants.revoke(pushID)
            limited(id, call, why: "seal_failed")
            return .unregistered
        }
        // Every sealed push is one length; one that cannot be (a Call-ID over the room) is not sent.
        guard payload.fits(fcmToken: registration.isAndroid ? registration.token : nil, ttlSeconds: configuration.fcmTTLSeconds)
        else {
            grants.revoke(pushID)
            limited(id, call, why: "call_id_too_long")
            return .unregistered
        }
        count(payload.sealed ? "pushes_sealed" : "pushes_clear")
        metrics.payload(sealed: payload.sealed)
        call.pushID = pushID
        call.pushSentMs = now
        calls[id] = call
        pushTasks[id]?.cancel()
        pushTasks[id] = Task {
            let refused = await self.deliver(
                id, call, registration, pushID: pushID, payload: payload, retryUntil: now + self.configuration.ackWindowMs / 2)
            guard !Task.isCancelled else { return }  // replaced by a newer push, or stopping
            self.pushTasks[id] = nil
            if refused != nil { await self.step(id) { $0.pushRefused() } }
        }
        return nil
    }

    /// The provider exchange of one push, and its answer acted on (``ProviderOutcome``): a dead
    /// token is dropped from the store; a stale credential is renewed and the push sent once
    /// more; 5xx and network failures are retried with back-off (50 ms, doubling) until
    /// `retryUntil` (half the ack window), while the call is not over; a 429 pauses the token.
    /// Returns nil when the provider accepted the push.
    private func deliver(
        _ id: Int32, _ call: HeldCall, _ registration: PushRegistration, pushID: String, payload: WakePushPayload,
        retryUntil: Int64
    ) async -> APNsRejection? {
        var attempts = 0
        var renewed = false
        var backoffMs: Int64 = 50
        var answer: ProviderAnswer
        while true {
            attempts += 1
            answer = await send(registration, payload)
            switch answer.outcome {
            case .refreshCredentials where !renewed:
                renewed = true
                if registration.isAndroid { await providers.invalidateFCMAccess() } else { await providers.invalidateAPNsToken() }
                continue
            case .retry where nowMs + backoffMs < retryUntil && (calls[id]?.machine.isActive ?? false) && !Task.isCancelled:
                do { try await clock.sleep(for: .milliseconds(backoffMs)) } catch { break }
                backoffMs *= 2
                continue
            default:
                break
            }
            break
        }
        reportPush(id, call, registration, pushID: pushID, answer: answer, attempts: attempts)
        switch answer.outcome {
        case .accepted:
            return nil
        case .dropToken(let reason, let since):
            grants.revoke(pushID)
            let dropped = store.drop(token: registration.token, endpoint: call.user, invalidSinceMs: since)
            for source in dropped { writer.enqueue(.deleteRegistration(endpoint: call.user, source: source)) }
            count("tokens_dropped")
            emit(
                WakeEvent(
                    "token_dropped",
                    [
                        ("user", .string(call.user)), ("token", .string(registration.redactedToken)),
                        ("reason", .string(reason)), ("sources", .string(dropped.map(\.rawValue).joined(separator: ","))),
                    ]))
            return .unregistered
        case .backOff(_, let retryAfter):
            grants.revoke(pushID)
            // Too many pushes to this device token — pause it (APNs gives no figure; FCM may).
            let until = nowMs + (retryAfter ?? configuration.apnsBackoffMs)
            apnsBackoff[registration.token] = until
            writer.enqueue(.saveBackoff(token: registration.token, untilWallMs: wallMs(until)))
            count("apns_429")
            return .tooManyRequests
        case .refreshCredentials, .retry, .fail:
            grants.revoke(pushID)
            count("push_failed")
            return .badDeviceToken
        }
    }

    /// One provider request for the push.
    private func send(_ registration: PushRegistration, _ payload: WakePushPayload) async -> ProviderAnswer {
        let timeout = Int(max(100, min(configuration.providerTimeoutMs, configuration.ackWindowMs)))
        if registration.isAndroid {
            return await providers.sendFCM(
                body: payload.fcmBody(token: registration.token, ttlSeconds: configuration.fcmTTLSeconds), timeoutMs: timeout)
        }
        return await providers.sendAPNs(
            token: registration.token, environment: registration.environment, topic: registration.topic,
            payload: payload.apnsBody, timeoutMs: timeout)
    }

    /// `push_sent`: which provider, its answer (`accepted` or `rejected:<reason>`), status, the
    /// request's time and whether it opened a connection — never the token or the push-id in clear.
    private func reportPush(
        _ id: Int32, _ call: HeldCall, _ registration: PushRegistration, pushID: String, answer: ProviderAnswer,
        attempts: Int
    ) {
        let outcome: String
        var providerID = ""
        if case .accepted(let accepted) = answer.outcome {
            outcome = "accepted"
            providerID = accepted
        } else {
            outcome = "rejected:" + answer.outcome.reason
        }
        metrics.pushed(
            provider: registration.isAndroid ? "fcm" : "apns", outcome: outcome == "accepted" ? "accepted" : "rejected")
        emit(
            WakeEvent(
                "push_sent",
                [
                    ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("user", .string(call.user)),
                    ("push_id", .string(PushGrants.redacted(pushID))),
                    ("provider", .string(registration.isAndroid ? "fcm" : "apns")),
                    (registration.isAndroid ? "fcm_name" : "apns_id", .string(providerID)),
                    (registration.isAndroid ? "fcm" : "apns", .string(outcome)), ("status", .int(Int64(answer.status))),
                    ("attempts", .int(Int64(attempts))), ("provider_ms", .int(answer.elapsedMs)),
                    ("new_connection", .bool(answer.newConnection)),
                    ("token", .string(registration.redactedToken)),
                    ("token_source", .string(registration.source.rawValue)),
                    ("topic", .string(registration.isAndroid ? registration.bundleID : registration.topic)),
                    ("since_invite_ms", .int(nowMs - call.arrivedMs)),
                ]))
    }

    /// A push not sent (rate limit, back-off; `not_sealed`, `grant_expired`, `seal_failed` for a
    /// sealed push that cannot go): counted and told, the call fails over.
    func limited(_ id: Int32, _ call: HeldCall, why: String) {
        switch why {
        case "user_rate": count("push_rate_limited")
        case "apns_backoff": count("apns_backoff")
        default: count("push_refused_" + why)
        }
        let android = store.registration(for: call.user)?.isAndroid ?? false
        let outcome = why == "user_rate" ? "rate_limited" : why == "apns_backoff" ? "backoff" : why
        metrics.pushed(provider: android ? "fcm" : "apns", outcome: outcome)
        emit(
            WakeEvent(
                "push_limited",
                [
                    ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("user", .string(call.user)),
                    ("why", .string(why)),
                ]))
    }
}
