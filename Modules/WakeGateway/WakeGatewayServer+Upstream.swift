import SIPCore
import SIPDialog
import SIPTransport

/// The caller's side of each held call: SIPDialog's INVITE server transaction (RFC 3261 §17.2.1)
/// per call, its actions executed here — the first step of the gateway running on pure
/// machines (``HeldCallMachine``, ADR 0145).
extension WakeGatewayServer {
    // MARK: The upstream INVITE server transaction (§17.2.1)

    /// T1 from `--sip-t1-ms`, T2 = 8·T1 (4 s by default), T4 = 0: the call lingers 64·T1 after
    /// its final with its branch indexed, which already absorbs ACK retransmissions (Timer I).
    var upstreamTimers: TransactionTimers {
        let t1 = configuration.sipT1Ms
        return TransactionTimers(t1: .milliseconds(t1), t2: .milliseconds(8 * t1), t4: .zero)
    }

    static func upstreamTimerKey(_ id: Int32, _ timer: TransactionTimer) -> String { "upstream-\(id)-\(timer.rawValue)" }

    /// One event on call `id`'s upstream transaction: the new state is written before anything
    /// is awaited; its timers are armed (or cancelled) next, and only then is anything sent.
    func upstreamStep(
        _ id: Int32,
        _ event: (inout InviteServerTransaction<[UInt8]>) -> [ServerTransactionAction<[UInt8]>]
    ) async {
        guard var call = calls[id] else { return }
        let actions = event(&call.upstreamTransaction)
        calls[id] = call
        var sends: [[UInt8]] = []
        for action in actions {
            switch action {
            case .sendResponse(let bytes): sends.append(bytes)
            case .startTimer(let timer, let delay): armUpstream(id, timer, after: delay)
            case .cancelTimer(let timer): stopRetransmitting(Self.upstreamTimerKey(id, timer))
            case .absorbedACK, .terminate: break
            }
        }
        for bytes in sends { await send(bytes, to: call.upstream) }
    }

    func armUpstream(_ id: Int32, _ timer: TransactionTimer, after delay: Duration) {
        let key = Self.upstreamTimerKey(id, timer)
        retransmissions[key]?.cancel()
        let clock = clock
        retransmissions[key] = Task { [weak self] in
            do { try await clock.sleep(for: delay) } catch { return }
            guard !Task.isCancelled else { return }
            await self?.upstreamTimerFired(id, timer)
        }
    }

    func upstreamTimerFired(_ id: Int32, _ timer: TransactionTimer) async {
        retransmissions[Self.upstreamTimerKey(id, timer)] = nil
        await upstreamStep(id) { $0.timerFired(timer) }
    }

    /// A response to the held INVITE from the gateway itself (100, 480, 487, 503).
    func localResponse(
        _ call: HeldCall, _ status: Int, reason: String? = nil, toTag: String? = nil, extra: SIPHeaders = SIPHeaders()
    ) -> [UInt8] {
        var headers = extra
        headers.add(.server, "astra-wakegw")
        return SIPResponse(to: call.invite, statusCode: status, reasonPhrase: reason, toTag: toTag, headers: headers)
            .serialized()
    }
}
