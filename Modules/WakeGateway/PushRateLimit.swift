/// The per-user cap on VoIP pushes (a push storm at one user is cut off; THREATS.md): a token
/// bucket per `asterisk_endpoint`, pure, on the gateway clock. Defaults: a burst of 5 pushes,
/// then one per 6 s (10 a minute) — a clinical phone rung more often than that is being
/// attacked or looped, and each extra push would wake and drain it. Over the cap the call fails
/// over at once (no push).
public struct PushRateLimit: Sendable, Hashable {
    /// Pushes allowed back to back.
    public var burst: Int
    /// Sustained pushes per minute (the refill rate).
    public var perMinute: Int

    public init(burst: Int = 5, perMinute: Int = 10) {
        self.burst = burst
        self.perMinute = perMinute
    }
}

/// The buckets of ``PushRateLimit``, one per user seen; full buckets are pruned so memory is
/// bounded by the users pushed to within a refill period.
struct PushRateLimiter: Sendable {
    let limit: PushRateLimit
    /// Tokens × 1000 (milli-tokens) and the time they were counted.
    private var buckets: [String: (milli: Int64, atMs: Int64)] = [:]

    init(_ limit: PushRateLimit) { self.limit = limit }

    var trackedUsers: Int { buckets.count }

    /// Whether `user` may be pushed to now; takes one token when so.
    mutating func allow(_ user: String, nowMs: Int64) -> Bool {
        let capacity = Int64(max(limit.burst, 1)) * 1_000
        var (milli, at) = buckets[user] ?? (capacity, nowMs)
        milli = min(capacity, milli + max(0, nowMs - at) * Int64(max(limit.perMinute, 0)) / 60)
        // A refusal stores nothing: re-basing the time on every refused call would lose the
        // fraction of a token accrued since (a storm of calls would never refill).
        guard milli >= 1_000 else { return false }
        buckets[user] = (milli - 1_000, nowMs)
        return true
    }

    /// Drops buckets that have refilled completely (they equal a fresh one); returns their users.
    @discardableResult mutating func prune(nowMs: Int64) -> [String] {
        let capacity = Int64(max(limit.burst, 1)) * 1_000
        let full = buckets.filter { $0.value.milli + max(0, nowMs - $0.value.atMs) * Int64(limit.perMinute) / 60 >= capacity }
        for user in full.keys { buckets[user] = nil }
        return Array(full.keys)
    }

    /// `user`'s bucket as last counted (milli-tokens, gateway ms), for the state store.
    func bucket(_ user: String) -> (milli: Int64, atMs: Int64)? { buckets[user] }

    /// A bucket read back from the state store (its time already on the gateway clock).
    mutating func restore(_ user: String, milli: Int64, atMs: Int64) {
        buckets[user] = (min(milli, Int64(max(limit.burst, 1)) * 1_000), atMs)
    }
}
