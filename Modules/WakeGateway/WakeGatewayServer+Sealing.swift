import AstraJSON
import HTTPLite
import JWT
import SIPCore

/// Sealed push, the registration side (docs/wake-gateway.md "Sealed push", ADR 0150–0152): the
/// device key, call grant and call key a phone gives with its registration are checked here
/// (``SealingOffer/checked(endpoint:bound:gatewayID:nowSeconds:)``, pure) and kept on the registration.
/// A refused grant is answered 403 with its reason (token API) or ignored (RFC 8599: Kamailio has
/// answered the REGISTER), counted as `grants_refused_<reason>` and told by one `grant_refused`
/// event — never with the grant, the key or the token.
extension WakeGatewayServer {
    /// The checked sealing of a token API registration for `endpoint`, nil for clear pushes, or
    /// the answer that refuses it (400 for a malformed field, 403 for a refused grant).
    func checkSealing(_ endpoint: String, _ offer: SealingOffer?) async -> Result<PushSealing?, Refusal> {
        // The bound device key is the one the shared store holds now (another gateway may have
        // taken the registration).
        if offer != nil, configuration.sealed != .off { await refreshRegistrations(endpoint) }
        switch sealing(endpoint, offer, source: .api) {
        case .success(let sealing): return .success(sealing)
        case .failure(.badField(let why)):
            return .failure(Refusal(.json(400, JSONValue.object(["error": .string(why)]).jsonText)))
        case .failure(let refusal):
            let reason = refusal.reason ?? "malformed"
            let body = JSONValue.object(["error": .string("call grant refused"), "grant": .string(reason)]).jsonText
            return .failure(Refusal(.json(403, body)))
        }
    }

    /// The sealing of a registration of `source` under `--sealed`, checked against the device key
    /// the endpoint has bound. A refusal is counted and told here.
    func sealing(_ endpoint: String, _ offer: SealingOffer?, source: PushRegistration.Source) -> Result<
        PushSealing?, SealingRefusal
    > {
        guard configuration.sealed != .off else { return .success(nil) }
        let result: Result<PushSealing?, SealingRefusal>
        if let offer {
            result = offer.checked(
                endpoint: endpoint, bound: store.boundDeviceKey(endpoint), gatewayID: configuration.grantAudience,
                nowSeconds: WallClock.nowMs() / 1_000
            ).map { $0 }
        } else {
            result = configuration.sealed == .required ? .failure(.required) : .success(nil)
        }
        if case .failure(let refusal) = result { grantRefused(endpoint, refusal, source: source) }
        return result
    }

    /// One refused grant: `grants_refused_<reason>` (or `sealing_field_refused` for a malformed
    /// field), the metric, and a `grant_refused` event.
    func grantRefused(_ endpoint: String, _ refusal: SealingRefusal, source: PushRegistration.Source) {
        let reason = refusal.reason ?? "bad_field"
        if refusal.reason != nil {
            count("grants_refused_" + reason)
            metrics.grantRefused(reason: reason)
        } else {
            count("sealing_fields_refused")
        }
        emit(
            WakeEvent(
                "grant_refused",
                [("user", .string(endpoint)), ("source", .string(source.rawValue)), ("reason", .string(reason))]))
    }

    /// The sealing an RFC 8599 REGISTER's Contact carries (``SealingOffer/pnGrant``,
    /// ``SealingOffer/pnCallKey``, ``SealingOffer/pnDeviceKey``), checked; `.failure` when it is refused (the registration is then not
    /// taken, and the one held before stays).
    func rfc8599Sealing(_ endpoint: String, _ contact: SIPContact?) -> Result<PushSealing?, SealingRefusal> {
        let value = { (name: String) in contact?.address?.uri.parameters[name] ?? contact?.address?.parameters[name] }
        var offer: SealingOffer?
        if let grant = value(SealingOffer.pnGrant), let callKey = value(SealingOffer.pnCallKey) {
            offer = SealingOffer(deviceKey: value(SealingOffer.pnDeviceKey), grant: grant, callKey: callKey)
        }
        return sealing(endpoint, offer, source: .rfc8599)
    }

    // MARK: The push

    /// The payload of call `call`'s push: sealed under `sealing`'s call key (the caller from the
    /// INVITE's From: URI, user, display name; the end time the gateway gives up by: the ack
    /// window, the register wait and the ring timeout from now, wall clock), or clear without
    /// one. nil when sealing failed (it does not with a checked key; the push is then not sent).
    func payload(_ call: HeldCall, _ sealing: PushSealing?, pushID: String, nowMs: Int64) -> WakePushPayload? {
        guard let sealing else { return .clear(pushID: pushID, caller: call.caller, callID: call.callID) }
        let from = try? call.invite.headers.from()
        let end = wallMs(
            nowMs + configuration.ackWindowMs + configuration.registerWaitMs + configuration.ringTimeoutMs)
        let caller = SealedCaller(
            uri: from?.uri.description ?? "", user: from?.uri.user ?? call.caller, name: from?.displayName ?? "",
            endMs: end)
        return try? WakePushPayload.sealed(
            pushID: pushID, caller: caller, callID: call.callID, callKey: sealing.callKey,
            gatewayID: configuration.grantAudience)
    }

    /// Whether `registration`'s pushes go sealed (then no event may name the caller).
    func seals(_ registration: PushRegistration?) -> Bool {
        configuration.sealed != .off && registration?.sealing != nil
    }
}
