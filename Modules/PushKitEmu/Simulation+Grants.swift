/// The phone's call grants (``CallGrant``, one per joined gateway): renewal, expiry, and the
/// GRANT checks on them (docs/pushkit-emulator.md "Call grants").
extension Simulation {
    /// Whether the server can wake the phone by push: it holds a token and, when it seals, a
    /// live call grant for the phone (an expired grant stops the gateway's pushes).
    var canPush: Bool {
        guard serverToken != nil else { return false }
        guard scenario.server.sealed, let g = keychain.gateways.firstIndex(where: { $0.id == SealedGateway.mainID })
        else { return true }
        return keychain.gateways[g].grant.live(at: now)
    }

    /// `renew_grant`: every joined gateway whose key the app holds gets the new grant. More than
    /// 15 days is refused (`grant_too_long`); within 15 minutes of the last grant it is granted
    /// but flagged (`grant_storm`), once per op.
    mutating func renewGrants(lifetimeMs: Int64, seconds: Int32) {
        var tooLong = false
        var storm = false
        let t = now
        for g in keychain.gateways.indices where keychain.gateways[g].keyPresent {
            switch keychain.updateGrant(g, { $0.renew(lifetimeMs: lifetimeMs, now: t) }) {
            case .tooLong:
                tooLong = true
                continue  // refused: the old grant and its expiry stand
            case .storm: storm = true
            case .granted: break
            }
            let expires = keychain.gateways[g].grant.expiresMs
            if expires > now { queue.push(.grantExpires(Int32(g)), at: expires) }
        }
        let held = keychain.gateways.first(where: \.keyPresent)?.grant.expiresMs ?? -1
        record(.grantRenewed(lifetimeSeconds: seconds, expiresMs: held))
        if tooLong { checker.record(Violation(.grantTooLong, t: now)) }
        if storm { checker.record(Violation(.grantStorm, t: now)) }
    }

    /// The app's launch was its check-in: a grant with less than 7 days left that its launch
    /// callbacks did not renew is owed a renewal (`grant_not_renewed` at expiry or run end).
    mutating func grantsCheckedIn() {
        guard clientFailure == nil else { return }
        let t = now
        for g in keychain.gateways.indices where keychain.gateways[g].keyPresent {
            keychain.updateGrant(g) { $0.checkedIn(at: t) }
        }
    }

    /// Gateway `g`'s grant expired (unless it was renewed since): it stops pushing.
    mutating func grantExpired(_ g: Int) {
        guard g < keychain.gateways.count, keychain.gateways[g].grant.expiresMs == now else { return }
        record(.grantExpired(gateway: Int32(g)))
        if keychain.updateGrant(g, { $0.flagNotRenewed() }) { checker.record(Violation(.grantNotRenewed, t: now)) }
    }
}
