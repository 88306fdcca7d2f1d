/// The RFC 3261 timer values (§17, Table 4 of Appendix A), derived from T1, T2 and T4.
///
/// T1, T2 and T4 are configuration, never literals in the state machines: tests shrink or
/// stretch them, and RFC 3261 §17.1.1.1 allows larger T1 on high-latency access networks.
public struct TransactionTimers: Sendable, Hashable {
    /// RTT estimate (default 500 ms).
    public var t1: Duration
    /// Maximum retransmit interval for non-INVITE requests and INVITE responses (default 4 s).
    public var t2: Duration
    /// Maximum duration a message remains in the network (default 5 s).
    public var t4: Duration

    public init(t1: Duration = .milliseconds(500), t2: Duration = .seconds(4), t4: Duration = .seconds(5)) {
        self.t1 = t1
        self.t2 = t2
        self.t4 = t4
    }

    /// The RFC defaults.
    public static let rfc3261 = TransactionTimers()

    /// 64·T1: Timers B, F, H, J (and RFC 6026 L, M).
    public var transactionTimeout: Duration { t1 * 64 }

    /// Timer D (§17.1.1.2): at least 32 s on unreliable transports, zero on reliable ones.
    public func timerD(reliable: Bool) -> Duration { reliable ? .zero : max(.seconds(32), transactionTimeout) }

    /// Timer I (§17.2.1) and K (§17.1.2.2): T4 on unreliable transports, zero on reliable ones.
    public func waitT4(reliable: Bool) -> Duration { reliable ? .zero : t4 }

    /// Timer J (§17.2.2): 64·T1 on unreliable transports, zero on reliable ones.
    public func timerJ(reliable: Bool) -> Duration { reliable ? .zero : transactionTimeout }

    /// The next retransmission interval after `current` for non-INVITE requests and INVITE
    /// final responses: doubles, capped at T2 (§17.1.2.2, §17.2.1).
    public func backedOff(_ current: Duration) -> Duration { min(current * 2, t2) }
}

/// The transaction timers of RFC 3261 §17 (C is proxy-only and not used by a UA) and RFC 6026.
public enum TransactionTimer: String, Sendable, Hashable, CaseIterable {
    /// INVITE client request retransmit (§17.1.1.2), doubles without cap.
    case A
    /// INVITE client transaction timeout (§17.1.1.2).
    case B
    /// INVITE client wait for response retransmits after a non-2xx final (§17.1.1.2).
    case D
    /// Non-INVITE client request retransmit (§17.1.2.2), doubles up to T2.
    case E
    /// Non-INVITE client transaction timeout (§17.1.2.2).
    case F
    /// INVITE server final-response retransmit (§17.2.1), doubles up to T2.
    case G
    /// INVITE server wait for ACK (§17.2.1).
    case H
    /// INVITE server wait for ACK retransmits (§17.2.1).
    case I
    /// Non-INVITE server wait for request retransmits (§17.2.2).
    case J
    /// Non-INVITE client wait for response retransmits (§17.1.2.2).
    case K
    /// INVITE server: wait for 2xx retransmissions from the TU (RFC 6026 §8.7).
    case L
    /// INVITE client: wait for 2xx retransmissions (RFC 6026 §8.4).
    case M
}

/// Why a transaction ended (what the transaction user is told, RFC 3261 §17 and §8.1.3.1).
public enum TransactionEnd: Error, Sendable, Hashable {
    /// The transaction completed normally.
    case completed
    /// Timer B, F or H fired: the peer never answered (the TU treats it as a 408, §8.1.3.1).
    case timeout
    /// The transport reported a failure (the TU treats it as a 503, §8.1.3.1).
    case transportError
}
