import SIPCore
import SIPTransport

extension SIPEndpoint {
    func handle(_ event: FlowEvent) {
        switch event {
        case .connecting:
            break
        case .connected(let info):
            binding = LocalBinding(flow: info)
            reliable = info.isReliable
            sink.yield(.flowUp(binding!, reliable: reliable))
        case .message(let received):
            receive(received.message)
        case .down(let error):
            binding = nil
            failAllClients()
            sink.yield(.flowDown(error))
        case .reconnectScheduled(let attempt, let after):
            sink.yield(.reconnectScheduled(attempt: attempt, after: after))
        case .stopped:
            break
        }
    }

    /// One SIP message from the flow (parsed by the transport, which drops unparsable ones).
    func receive(_ message: SIPMessage) {
        switch message {
        case .response(let response): receive(response)
        case .request(let request): receive(request)
        }
    }

    /// §17.1.3: hand the response to its client transaction, else report it as stray.
    func receive(_ response: SIPResponse) {
        guard let key = TransactionKey.client(response: response.headers) else {
            sink.yield(.discarded("response without Via branch or CSeq"))
            return
        }
        guard var record = clients[key] else {
            sink.yield(.strayResponse(response))
            return
        }
        let actions = record.machine.receive(response)
        clients[key] = record
        run(actions, client: key)
    }

    /// §17.2.3: retransmissions go to their server transaction; ACK and CANCEL are special;
    /// new requests open a server transaction and go to the TU (OPTIONS may be answered here).
    func receive(_ request: SIPRequest) {
        guard let key = TransactionKey.server(request: request) else {
            sink.yield(.discarded("request without Via or CSeq"))
            return
        }
        if request.method == .ack {
            if var record = servers[key] {
                let actions = record.machine.receiveACK()
                servers[key] = record
                run(actions, server: key)
            } else {
                sink.yield(.ack(request))
            }
            return
        }
        if var record = servers[key] {
            let actions = record.machine.receiveRequestRetransmission()
            servers[key] = record
            run(actions, server: key)
            return
        }
        open(request, key: key)
    }

    private func open(_ request: SIPRequest, key: TransactionKey) {
        let machine: ServerMachine = request.method == .invite
            ? .invite(InviteServerTransaction(reliable: reliable, timers: timers))
            : .nonInvite(NonInviteServerTransaction(reliable: reliable, timers: timers))
        servers[key] = ServerRecord(machine: machine, request: request)
        let incoming = IncomingRequest(request: request, key: key)

        // §8.2.3 / §8.2: a CSeq method that differs from the request method is a bad request.
        if let cseq = try? request.headers.cseq(), cseq.method != request.method {
            respond(to: incoming, with: automaticResponse(to: request, status: 400, reason: "CSeq Method Mismatch"))
            return
        }
        switch request.method {
        case .invite:
            // §17.2.1: the transaction layer sends 100 Trying at once.
            respond(to: incoming, with: automaticResponse(to: request, status: 100))
            sink.yield(.request(incoming))
        case .cancel:
            cancel(incoming)
        case .options where settings.answersOptions:
            var ok = automaticResponse(to: request, status: 200, toTag: true)
            ok.headers.add(.allow, settings.allow)
            ok.headers.add(.accept, settings.accept)
            ok.headers.add(.supported, settings.supported)
            respond(to: incoming, with: ok)
            sink.yield(.qualifyAnswered(from: request.headers[.from] ?? "?"))
        default:
            sink.yield(.request(incoming))
        }
    }

    /// §9.2: a CANCEL that matches a pending INVITE is answered 200 and reported; otherwise 481.
    private func cancel(_ incoming: IncomingRequest) {
        let inviteKey = TransactionKey(branch: incoming.key.branch, sentBy: incoming.key.sentBy, method: "INVITE")
        guard let invite = servers[inviteKey] else {
            respond(to: incoming, with: automaticResponse(to: incoming.request, status: 481))
            return
        }
        respond(to: incoming, with: automaticResponse(to: incoming.request, status: 200, toTag: true))
        sink.yield(.cancelled(IncomingRequest(request: invite.request, key: inviteKey)))
    }

    func automaticResponse(to request: SIPRequest, status: Int, reason: String? = nil, toTag: Bool = false) -> SIPResponse {
        let hasTag = ((try? request.headers.to())??.tag) != nil
        var response = SIPResponse(to: request, statusCode: status, reasonPhrase: reason,
                                   toTag: toTag && !hasTag ? ids.tag() : nil)
        response.headers.add(.server, settings.userAgent)
        return response
    }
}
