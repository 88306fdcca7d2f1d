import AstraJSON
import HTTPLite

/// The durable state (``StateStore``) seen from the gateway: read back at start, written through
/// ``StateWriter``. Times in the store are wall-clock ms (they must mean the same after a
/// restart); in memory they are gateway ms (since start, on the injected clock).
extension WakeGatewayServer {
    /// Gateway ms → wall-clock ms.
    func wallMs(_ gatewayMs: Int64) -> Int64 { WallClock.nowMs() + (gatewayMs - nowMs) }
    /// Wall-clock ms → gateway ms.
    func gatewayMs(_ wallMs: Int64) -> Int64 { nowMs + (wallMs - WallClock.nowMs()) }

    /// Reads everything stored into the working copy: registrations, buckets, back-offs still
    /// running. Expired back-offs are deleted.
    func restoreState() async throws(WakeGatewayError) {
        let snapshot: StateSnapshot
        do {
            snapshot = try await state.load()
        } catch {
            throw WakeGatewayError("state \(state.location): \(error.message)")
        }
        for registration in snapshot.registrations { store.restore(registration) }
        for bucket in snapshot.rateBuckets {
            rateLimiter.restore(bucket.endpoint, milli: bucket.milli, atMs: gatewayMs(bucket.atWallMs))
        }
        for stale in rateLimiter.prune(nowMs: nowMs) { writer.enqueue(.deleteRateBucket(endpoint: stale)) }
        let now = WallClock.nowMs()
        for backoff in snapshot.backoffs {
            if backoff.untilWallMs > now {
                apnsBackoff[backoff.token] = gatewayMs(backoff.untilWallMs)
            } else {
                writer.enqueue(.deleteBackoff(token: backoff.token))
            }
        }
        emit(
            WakeEvent(
                "state_loaded",
                [
                    ("state", .string(StateStores.redactedURL(state.location))),
                    ("api_registrations", .int(Int64(store.api.count))),
                    ("rfc8599_registrations", .int(Int64(store.rfc8599.count))),
                    ("rate_buckets", .int(Int64(rateLimiter.trackedUsers))), ("backoffs", .int(Int64(apnsBackoff.count))),
                ]))
    }

    /// A token request that changes the state (register, delete, stop): committed first, answered
    /// after. A store that fails answers 503 and changes nothing, in memory or on disk.
    /// `sealing`: the checked sealing of a register (``checkSealing(_:_:)``).
    func applyDurably(_ request: WakeAPIRequest, sealing: PushSealing? = nil) async -> HTTPResponse {
        // A status or a delete reads what the shared store holds (a register replaces it anyway;
        // a sealed one has read it for the bound device key).
        switch request {
        case .status(let endpoint, _), .deleteToken(let endpoint), .stopGrant(let endpoint):
            await refreshRegistrations(endpoint)
        case .registerToken, .ack: break
        }
        let now = WallClock.nowMs()
        let changes = store.changes(for: request, sealing: sealing, nowMs: now)
        if !changes.isEmpty {
            do {
                try await writer.commit(changes)
            } catch {
                stateFailed(error, "token_api")
                return .json(503, JSONValue.object(["error": .string("state store unavailable")]).jsonText)
            }
        }
        return store.apply(request, sealing: sealing, nowMs: now)
    }

    /// With a store other gateways write too (``StateStore/isShared``: PostgreSQL), `user`'s
    /// registrations are read back before they are used — the phone may have given its token to
    /// another gateway, or deleted it there. A read that fails keeps the working copy (one
    /// `state_error`): a push to a token that may be stale beats no push.
    func refreshRegistrations(_ user: String) async {
        guard state.isShared else { return }
        do {
            store.replace(endpoint: user, with: try await state.registrations(endpoint: user))
        } catch {
            stateFailed(error, "refresh")
        }
    }

    /// An RFC 8599 registration from a replicated REGISTER: stored when it differs from the one
    /// held (a phone re-registers every few minutes with the same token; only a change is a
    /// write). Committed before the gateway goes on, like the token API's.
    func saveRFC8599(_ registration: PushRegistration) async {
        let known = store.rfc8599[registration.endpoint]
        store.setRFC8599(registration)
        if let known, known.token == registration.token, known.environment == registration.environment,
            known.bundleID == registration.bundleID, known.platform == registration.platform,
            known.sealing == registration.sealing
        {
            return
        }
        do {
            try await writer.commit([.saveRegistration(registration)])
        } catch {
            stateFailed(error, "rfc8599")
        }
    }

    /// A push taken from `user`'s bucket: the bucket is written behind.
    func saveBucket(_ user: String) {
        if let bucket = rateLimiter.bucket(user) {
            writer.enqueue(.saveRateBucket(endpoint: user, milli: bucket.milli, atWallMs: wallMs(bucket.atMs)))
        }
        if rateLimiter.trackedUsers > 1_024 {
            for stale in rateLimiter.prune(nowMs: nowMs) { writer.enqueue(.deleteRateBucket(endpoint: stale)) }
        }
    }

    /// A store that refused a read or write: counted, one event (never a token).
    func stateFailed(_ error: StateStoreError, _ during: String) {
        count("state_errors")
        emit(WakeEvent("state_error", [("during", .string(during)), ("error", .string(error.message))]))
    }
}
