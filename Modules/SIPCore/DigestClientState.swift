/// The client side of SIP digest authentication (RFC 3261 §22.2–§22.4, RFC 7616 §3.4,
/// RFC 8760 §2.4) as a value type: it keeps the last challenge per (kind, realm), the `nc`
/// and `cnonce` per nonce, and decides whether a 401/407 deserves a retry.
///
/// Use: on every request call ``authorizationHeaders(method:uri:body:)`` (empty before the
/// first challenge); on a 401/407 call ``receive(challenges:kind:)`` and resend only on
/// ``DigestRetryDecision/retry``. ACK and CANCEL for an INVITE copy that INVITE's headers
/// instead (RFC 3261 §22.1), which is the caller's business.
///
/// Retry rule, per realm ("retry once per fresh challenge"):
/// - first challenge for the realm, or one we never answered: retry;
/// - `stale=true` with a new nonce: retry without asking for the password (RFC 7616 §3.3),
///   at most ``maxStaleRetries`` times in a row for nonces that went stale after one use;
/// - the same nonce again, not stale: give up — same credentials, same nonce (§22.2);
/// - a new nonce, not stale, after we answered the previous one exactly once: give up (the
///   credentials were wrong; servers such as Asterisk issue a fresh nonce on every 401);
/// - a new nonce, not stale, after the previous one was reused (nc ≥ 2, i.e. it worked
///   before and has now expired at a server that omits `stale`): retry once.
public struct DigestClientState: Sendable {
    /// One remembered challenge.
    struct Entry: Sendable {
        var kind: DigestChallengeKind
        var challenge: DigestChallenge
        var cnonce: String?
        /// The last `nc` sent with this nonce; 0 = not answered yet.
        var nonceCount: UInt32 = 0
        /// Consecutive `stale=true` retries whose nonce was used only once.
        var staleRun = 0
        /// H(username:realm:password) for this challenge's realm and hash, once computed.
        var baseHA1: String?
    }

    /// At most this many realms are remembered; the oldest is forgotten first.
    public static let maxRealms = 8
    /// At most this many `stale=true` retries in a row for a nonce used once each.
    public static let maxStaleRetries = 3

    /// The credentials; replacing them with ``update(credentials:)`` forgets all challenges.
    public private(set) var credentials: DigestCredentials
    /// Answer `auth-int` when offered and the request has a body (default: `auth`).
    public var preferAuthInt: Bool
    private var entries: [Entry] = []

    public init(credentials: DigestCredentials, preferAuthInt: Bool = false) {
        self.credentials = credentials
        self.preferAuthInt = preferAuthInt
    }

    /// The realms we hold challenges for, in order.
    public var realms: [String] { entries.map(\.challenge.realm) }

    /// The algorithm of the challenge answered for each realm, in the order of ``realms``.
    public var algorithms: [DigestAlgorithm] { entries.map(\.challenge.algorithm) }

    /// Replaces the credentials (e.g. after the user fixed the password) and forgets every challenge.
    public mutating func update(credentials: DigestCredentials) {
        self.credentials = credentials
        entries.removeAll()
    }

    /// Forgets every challenge (e.g. on a new registration to another server).
    public mutating func reset() { entries.removeAll() }

    /// Takes the `WWW-Authenticate` (kind `.server`) or `Proxy-Authenticate` (`.proxy`) values
    /// of a 401/407 and decides whether to resend. Several challenges for one realm: the
    /// strongest algorithm wins (RFC 8760 §2.4); several realms are all answered (§22.3).
    public mutating func receive(challenges headerValues: [String], kind: DigestChallengeKind) -> DigestRetryDecision {
        let parsed: [DigestChallenge]
        do {
            parsed = try DigestChallenge.parseAll(headerValues)
        } catch {
            return .giveUp(error)
        }
        var realmsInOrder: [String] = []
        for challenge in parsed where !realmsInOrder.contains(challenge.realm) { realmsInOrder.append(challenge.realm) }
        let chosen = realmsInOrder.compactMap { realm in
            DigestChallenge.strongest(parsed.filter { $0.realm == realm })
        }.filter { credentials.applies(to: $0.realm) }
        guard !chosen.isEmpty else {
            return .giveUp(DigestError(.noCredentialsForRealm, realmsInOrder.joined(separator: ", ")))
        }
        var updated = entries
        for challenge in chosen {
            let fresh = Entry(kind: kind, challenge: challenge)
            guard let at = updated.firstIndex(where: { $0.kind == kind && $0.challenge.realm == challenge.realm })
            else {
                updated.append(fresh)
                continue
            }
            guard let replacement = Self.replacement(for: updated[at], with: challenge) else {
                entries.removeAll { $0.kind == kind && $0.challenge.realm == challenge.realm }
                return .giveUp(DigestError(.credentialsRejected, challenge.realm))
            }
            updated[at] = replacement
        }
        if updated.count > Self.maxRealms { updated.removeFirst(updated.count - Self.maxRealms) }
        entries = updated
        return .retry
    }

    /// The retry rule of the type documentation: the entry to keep, or nil to give up.
    static func replacement(for previous: Entry, with next: DigestChallenge) -> Entry? {
        var fresh = Entry(kind: previous.kind, challenge: next)
        if previous.nonceCount == 0 { return fresh }
        if next.nonce == previous.challenge.nonce { return nil }
        if next.stale {
            // Bound stale loops: a nonce that is stale again right after its single use.
            fresh.staleRun = previous.nonceCount == 1 ? previous.staleRun + 1 : 1
            return fresh.staleRun <= maxStaleRetries ? fresh : nil
        }
        return previous.nonceCount >= 2 ? fresh : nil
    }

    /// The `Authorization` / `Proxy-Authorization` headers for the next request: one per
    /// remembered realm, each with `nc` incremented and the per-nonce `cnonce` (drawn from
    /// ``KeyMaterial`` on first use: the system CSPRNG, never a `--seed`). Empty before any
    /// challenge. `uri` is the Request-URI.
    ///
    /// - Throws: `.nonceCountExhausted`, `.invalidCharacter` (CR/LF in `uri` or `method`), …
    public mutating func authorizationHeaders(
        method: String, uri: String, body: [UInt8] = []
    ) throws(DigestError) -> [DigestHeaderField] {
        var fields: [DigestHeaderField] = []
        try answerEach(method: method, uri: uri, body: body) { kind, authorization in
            fields.append(DigestHeaderField(name: kind.authorizationHeaderName, authorization: authorization))
        }
        return fields
    }

    /// The same header lines as ``authorizationHeaders(method:uri:body:)`` for a request
    /// without a body, with the same state changes, appended to `out` as wire bytes
    /// (`Name: value` CRLF each): the load engine writes its REGISTERs as bytes (decision D13).
    package mutating func appendAuthorizationLines(
        method: String, uri: String, to out: inout [UInt8]
    ) throws(DigestError) {
        try answerEach(method: method, uri: uri, body: []) { kind, authorization in
            switch kind {
            case .server: out.append(contentsOf: "Authorization: ".utf8)
            case .proxy: out.append(contentsOf: "Proxy-Authorization: ".utf8)
            }
            authorization.appendHeaderValue(to: &out)
            out.append(13)
            out.append(10)
        }
    }

    /// One answer per remembered challenge, in order; the new nonce counts are kept only when
    /// every answer could be computed.
    private mutating func answerEach(
        method: String, uri: String, body: [UInt8],
        _ emit: (DigestChallengeKind, DigestAuthorization) -> Void
    ) throws(DigestError) {
        var updated = entries
        for index in updated.indices {
            var entry = updated[index]
            guard entry.nonceCount < UInt32.max else { throw DigestError(.nonceCountExhausted, entry.challenge.realm) }
            entry.nonceCount += 1
            let cnonce = entry.cnonce ?? KeyMaterial.cnonce()
            entry.cnonce = cnonce
            let qop = entry.challenge.chooseQoP(hasBody: !body.isEmpty, preferAuthInt: preferAuthInt)
            let authorization = try DigestAuthorization(
                answering: entry.challenge, credentials: credentials, method: method, uri: uri, body: body, qop: qop,
                cnonce: cnonce, nonceCount: entry.nonceCount, baseHA1: &entry.baseHA1)
            emit(entry.kind, authorization)
            updated[index] = entry
        }
        entries = updated
    }
}

extension DigestClientState: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        let realms = entries.map { "\($0.kind.authorizationHeaderName) \($0.challenge.realm) nc=\($0.nonceCount)" }
        return "DigestClientState(\(credentials), [\(realms.joined(separator: "; "))])"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self, children: ["credentials": credentials, "realms": realms, "preferAuthInt": preferAuthInt],
            displayStyle: .struct)
    }
}
