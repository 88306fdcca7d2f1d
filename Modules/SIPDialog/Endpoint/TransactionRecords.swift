import SIPCore

/// A client transaction of either kind (§17.1.1 INVITE, §17.1.2 non-INVITE).
enum ClientMachine: Sendable {
    case invite(InviteClientTransaction<SIPResponse>)
    case nonInvite(NonInviteClientTransaction<SIPResponse>)

    typealias Action = ClientTransactionAction<SIPResponse>

    mutating func start() -> [Action] {
        switch self {
        case .invite(var m): defer { self = .invite(m) }; return m.start()
        case .nonInvite(var m): defer { self = .nonInvite(m) }; return m.start()
        }
    }

    mutating func receive(_ response: SIPResponse) -> [Action] {
        switch self {
        case .invite(var m): defer { self = .invite(m) }; return m.receive(status: response.statusCode, response)
        case .nonInvite(var m): defer { self = .nonInvite(m) }; return m.receive(status: response.statusCode, response)
        }
    }

    mutating func timerFired(_ timer: TransactionTimer) -> [Action] {
        switch self {
        case .invite(var m): defer { self = .invite(m) }; return m.timerFired(timer)
        case .nonInvite(var m): defer { self = .nonInvite(m) }; return m.timerFired(timer)
        }
    }

    mutating func transportError() -> [Action] {
        switch self {
        case .invite(var m): defer { self = .invite(m) }; return m.transportError()
        case .nonInvite(var m): defer { self = .nonInvite(m) }; return m.transportError()
        }
    }
}

/// A server transaction of either kind (§17.2.1 INVITE, §17.2.2 non-INVITE).
enum ServerMachine: Sendable {
    case invite(InviteServerTransaction<SIPResponse>)
    case nonInvite(NonInviteServerTransaction<SIPResponse>)

    typealias Action = ServerTransactionAction<SIPResponse>

    mutating func send(status: Int, _ response: SIPResponse) -> [Action] {
        switch self {
        case .invite(var m): defer { self = .invite(m) }; return m.send(status: status, response)
        case .nonInvite(var m): defer { self = .nonInvite(m) }; return m.send(status: status, response)
        }
    }

    mutating func receiveRequestRetransmission() -> [Action] {
        switch self {
        case .invite(var m): defer { self = .invite(m) }; return m.receiveRequestRetransmission()
        case .nonInvite(var m): defer { self = .nonInvite(m) }; return m.receiveRequestRetransmission()
        }
    }

    mutating func receiveACK() -> [Action] {
        switch self {
        case .invite(var m): defer { self = .invite(m) }; return m.receiveACK()
        case .nonInvite: return []
        }
    }

    mutating func timerFired(_ timer: TransactionTimer) -> [Action] {
        switch self {
        case .invite(var m): defer { self = .invite(m) }; return m.timerFired(timer)
        case .nonInvite(var m): defer { self = .nonInvite(m) }; return m.timerFired(timer)
        }
    }

    mutating func transportError() -> [Action] {
        switch self {
        case .invite(var m): defer { self = .invite(m) }; return m.transportError()
        case .nonInvite(var m): defer { self = .nonInvite(m) }; return m.transportError()
        }
    }
}

/// Who hears about a client transaction: a stream of every update, or one waiter for the final
/// response (resumed once, by the first final response or by the end).
enum ClientListener: Sendable {
    case updates(AsyncStream<ClientTransactionUpdate>.Continuation)
    case finalResponse(CheckedContinuation<Result<SIPResponse, TransactionEnd>, Never>)
    case done

    mutating func deliver(_ response: SIPResponse) {
        switch self {
        case .updates(let continuation):
            continuation.yield(.response(response))
        case .finalResponse(let continuation):
            guard response.statusCode >= 200 else { return }
            self = .done
            continuation.resume(returning: .success(response))
        case .done:
            break
        }
    }

    mutating func ended(_ end: TransactionEnd) {
        switch self {
        case .updates(let continuation):
            continuation.yield(.ended(end))
            continuation.finish()
        case .finalResponse(let continuation):
            continuation.resume(returning: .failure(end == .completed ? .transportError : end))
        case .done:
            break
        }
        self = .done
    }
}

struct ClientRecord: Sendable {
    var machine: ClientMachine
    let request: SIPRequest
    let bytes: [UInt8]
    var listener: ClientListener
    /// The sent-by of the Via we inserted: a response must carry it back (RFC 3261 §18.1.2).
    let sentBy: ViaSentBy?

    init(request: SIPRequest, bytes: [UInt8], reliable: Bool, timers: TransactionTimers,
         listener: ClientListener) {
        self.request = request
        self.bytes = bytes
        self.listener = listener
        self.sentBy = ((try? request.headers.topVia()) ?? nil).map(ViaSentBy.init)
        machine = request.method == .invite
            ? .invite(InviteClientTransaction(reliable: reliable, timers: timers))
            : .nonInvite(NonInviteClientTransaction(reliable: reliable, timers: timers))
    }
}

struct ServerRecord: Sendable {
    var machine: ServerMachine
    let request: SIPRequest
}

/// One running timer: which transaction, which RFC timer, and a generation so a stale wake-up
/// of a cancelled timer is ignored.
struct TimerID: Sendable, Hashable {
    enum Side: Sendable, Hashable { case client, server }
    let side: Side
    let key: TransactionKey
    let timer: TransactionTimer
}
