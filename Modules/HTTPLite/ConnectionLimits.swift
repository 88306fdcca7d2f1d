/// Bounds on a TCP server's connections (THREATS.md: bound time and counts before buffering).
/// Shared by ``HTTPServer`` and the wake gateway's APNs device port; the defaults are the gateway's
/// (docs/wake-gateway.md "Connections", decision D25).
public struct ConnectionLimits: Sendable, Hashable {
    /// Open connections at most; a new one over the cap evicts the quietest (see ``ConnectionTable``).
    public var maxConnections: Int
    /// Open connections from one peer IP at most (same eviction, among that peer's).
    public var maxPerPeer: Int
    /// A started request (or a device hello) must be complete within this time, else 408 / close:
    /// a slow sender cannot hold a slot (slowloris).
    public var headerTimeoutMs: Int64
    /// A connection with no request in progress is closed after this long quiet (keep-alive).
    public var idleTimeoutMs: Int64

    public init(
        maxConnections: Int = 1_024, maxPerPeer: Int = 1_024, headerTimeoutMs: Int64 = 10_000,
        idleTimeoutMs: Int64 = 30_000
    ) {
        self.maxConnections = maxConnections
        self.maxPerPeer = maxPerPeer
        self.headerTimeoutMs = headerTimeoutMs
        self.idleTimeoutMs = idleTimeoutMs
    }

    /// How often a shell sweeps its ``ConnectionTable`` for ``ConnectionTable/expired(nowMs:)``:
    /// a quarter of the shorter timeout, so a connection is closed at most a quarter late, and
    /// within 10 ms … 1 s (no busy loop for tiny test timeouts, no sweep rarer than a second).
    /// One rule for every TCP server over the table (HTTPServer, HTTP2Server, the APNs device port).
    public var sweepIntervalMs: Int64 { min(max(10, min(headerTimeoutMs, idleTimeoutMs) / 4), 1_000) }

    /// The sweep every server over a ``ConnectionTable`` runs: `sweep` every ``sweepIntervalMs``
    /// until the task is cancelled (the server's stop) or `sweep` returns false (the server is
    /// gone: callers pass `{ [weak self] in await self?.sweep() != nil }`).
    public func sweepLoop(_ sweep: @escaping @Sendable () async -> Bool) -> Task<Void, Never> {
        let interval = sweepIntervalMs
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(interval))
                if Task.isCancelled { return }
                guard await sweep() else { return }
            }
        }
    }
}

/// The admission, eviction and timeout rules over a server's open connections — pure, times are
/// parameters (ms on any monotonic clock).
///
/// - A connection is *idle* (no bytes of a request buffered), *reading* (a request started, not
///   complete) or *busy* (its request is being answered).
/// - Admission: under both caps → accepted. At a cap → the connection quiet longest among those
///   not busy (the peer's own when the per-peer cap is the one reached) is evicted and the new one
///   accepted; only when every candidate is busy is the new one refused. So a flood of idle or
///   slow sockets can never keep a fresh request (a phone's push-ack) out.
/// - Timeouts: reading longer than `headerTimeoutMs` since the request's first byte, or idle longer
///   than `idleTimeoutMs` since the last activity → expired (the shell answers 408 or closes).
public struct ConnectionTable<ID: Hashable & Sendable>: Sendable {
    public enum Phase: Sendable, Hashable {
        case idle
        case reading(sinceMs: Int64)
        case busy
    }

    public enum Admission: Sendable, Hashable {
        case accepted(evicting: ID?)
        case refused
    }

    struct Entry: Sendable {
        var peer: String
        var phase: Phase
        var lastActivityMs: Int64
        var order: UInt64
    }

    public let limits: ConnectionLimits
    private(set) var entries: [ID: Entry] = [:]
    private var perPeer: [String: Int] = [:]
    private var counter: UInt64 = 0

    public init(limits: ConnectionLimits) { self.limits = limits }

    public var count: Int { entries.count }
    public func count(peer: String) -> Int { perPeer[peer] ?? 0 }
    public func phase(_ id: ID) -> Phase? { entries[id]?.phase }

    /// A new connection from `peer` (an IP): accepted (possibly evicting one, already removed
    /// from the table — the shell closes it) or refused.
    public mutating func admit(_ id: ID, peer: String, nowMs: Int64) -> Admission {
        var victim: ID?
        if count(peer: peer) >= limits.maxPerPeer {
            guard let quietest = quietest(where: { $0.peer == peer }) else { return .refused }
            victim = quietest
        } else if entries.count >= limits.maxConnections {
            guard let quietest = quietest(where: { _ in true }) else { return .refused }
            victim = quietest
        }
        if let victim { remove(victim) }
        counter += 1
        entries[id] = Entry(peer: peer, phase: .idle, lastActivityMs: nowMs, order: counter)
        perPeer[peer, default: 0] += 1
        return .accepted(evicting: victim)
    }

    /// The connection's phase changed (bytes arrived, a request is being answered, it is idle again).
    public mutating func update(_ id: ID, _ phase: Phase, nowMs: Int64) {
        guard var entry = entries[id] else { return }
        entry.phase = phase
        entry.lastActivityMs = nowMs
        counter += 1
        entry.order = counter
        entries[id] = entry
    }

    public mutating func remove(_ id: ID) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        let left = (perPeer[entry.peer] ?? 1) - 1
        perPeer[entry.peer] = left > 0 ? left : nil
    }

    /// Out of descriptors (the listener's ``TCPListener/descriptorPressure``): removes the
    /// connection quiet longest among those not busy and returns it for the shell to close, so
    /// the connection waiting in the backlog can be accepted; nil when every one is busy.
    public mutating func evictQuietest() -> ID? {
        guard let victim = quietest(where: { _ in true }) else { return nil }
        remove(victim)
        return victim
    }

    /// Connections past a timeout at `nowMs`, with whether each was reading (→ 408) or idle.
    public func expired(nowMs: Int64) -> [(id: ID, wasReading: Bool)] {
        var out: [(ID, Bool)] = []
        for (id, entry) in entries {
            switch entry.phase {
            case .idle where nowMs - entry.lastActivityMs >= limits.idleTimeoutMs: out.append((id, false))
            case .reading(let since) where nowMs - since >= limits.headerTimeoutMs: out.append((id, true))
            default: break
            }
        }
        return out
    }

    private func quietest(where match: (Entry) -> Bool) -> ID? {
        var best: (ID, UInt64)?
        for (id, entry) in entries where entry.phase != .busy && match(entry) {
            if best == nil || entry.order < best!.1 { best = (id, entry.order) }
        }
        return best?.0
    }
}
