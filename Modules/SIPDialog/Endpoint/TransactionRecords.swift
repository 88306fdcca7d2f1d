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

struct ClientRecord: Sendable {
    var machine: ClientMachine
    let request: SIPRequest
    let bytes: [UInt8]
    let continuation: AsyncStream<ClientTransactionUpdate>.Continuation

    init(request: SIPRequest, bytes: [UInt8], reliable: Bool, timers: TransactionTimers,
         continuation: AsyncStream<ClientTransactionUpdate>.Continuation) {
        self.request = request
        self.bytes = bytes
        self.continuation = continuation
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
