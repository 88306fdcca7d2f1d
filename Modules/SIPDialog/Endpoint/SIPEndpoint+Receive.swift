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

    /// §18.1.2 / §8.1.3.3, then §17.1.3: a response with more than one Via, or whose Via
    /// sent-by is not the one we inserted, is silently discarded (reported as ``EndpointEvent/discarded(_:)``
    /// only); the others go to their client transaction, or are reported as stray.
    func receive(_ response: SIPResponse) {
        let sentBy: ViaSentBy
        switch response.headers.responseVia {
        case .missing:
            sink.yield(.discarded("response without Via"))
            return
        case .several:
            sink.yield(.discarded("response with more than one Via (RFC 3261 §8.1.3.3)"))
            return
        case .single(let value):
            sentBy = value
        }
        guard let key = TransactionKey.client(response: response.headers) else {
            sink.yield(.discarded("response without Via branch or CSeq"))
            return
        }
        guard var record = clients[key] else {
            // No transaction: check against the sent-by we insert on this flow now.
            if let binding, ViaSentBy(host: binding.host, port: binding.port) != sentBy {
                sink.yield(.discarded(Self.foreignVia(sentBy)))
            } else {
                sink.yield(.strayResponse(response))
            }
            return
        }
        if let inserted = record.sentBy, inserted != sentBy {
            sink.yield(.discarded(Self.foreignVia(sentBy, expected: inserted)))
            return
        }
        let actions = record.machine.receive(response)
        clients[key] = record
        run(actions, client: key)
    }

    private static func foreignVia(_ sentBy: ViaSentBy, expected: ViaSentBy? = nil) -> String {
        "response Via sent-by \(sentBy) is not ours" + (expected.map { " (\($0))" } ?? "") + " (RFC 3261 §18.1.2)"
    }

    /// §17.2.3: retransmissions go to their server transaction; ACK and CANCEL are special;
    /// new requests are checked (§8.2, ``RequestValidator``), open a server transaction and go
    /// to the TU (OPTIONS may be answered here).
    func receive(_ request: SIPRequest) {
        guard let key = TransactionKey.server(request: request) else {
            refuseWithoutTransaction(request)
            return
        }
        if request.method == .ack {
            if var record = servers[key] {
                let actions = record.machine.receiveACK()
                servers[key] = record
                run(actions, server: key)
            } else if let rejection = validator.check(request) {
                // §17.1.1.3: an ACK is never answered; a malformed one is dropped.
                sink.yield(.discarded("ACK dropped: \(rejection)"))
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

    /// A request with no usable top Via or CSeq has no transaction key. Without a Via there is
    /// nowhere to send a response (§18.2.2): it is dropped. With a Via but no CSeq it gets a
    /// stateless 400 naming the missing header (§8.2.6, §8.2.7), except ACK (never answered).
    private func refuseWithoutTransaction(_ request: SIPRequest) {
        let rejection = validator.check(request) ?? .missingHeader(.cseq)
        guard request.method != .ack, (try? request.headers.topVia()) != nil else {
            sink.yield(.discarded("request dropped: \(rejection)"))
            return
        }
        transmit(refusal(rejection, to: request).serialized(), failing: nil, side: .server)
        sink.yield(.discarded("request refused: \(rejection)"))
    }

    private func open(_ request: SIPRequest, key: TransactionKey) {
        let machine: ServerMachine = request.method == .invite
            ? .invite(InviteServerTransaction(reliable: reliable, timers: timers))
            : .nonInvite(NonInviteServerTransaction(reliable: reliable, timers: timers))
        servers[key] = ServerRecord(machine: machine, request: request)
        let incoming = IncomingRequest(request: request, key: key)

        // §8.2: version, mandatory headers, method, CSeq method, URI scheme, Require; then the
        // merged-request check of §8.2.2.2. The answer goes through the server transaction, so a
        // retransmission of the refused request gets the same response again (§17.2).
        if let rejection = validator.check(request) ?? mergedRequest(request, key: key) {
            respond(to: incoming, with: refusal(rejection, to: request))
            sink.yield(.discarded("request refused: \(rejection)"))
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

    /// §8.2.2.2: a request without To tag whose From tag, Call-ID and CSeq equal those of a
    /// running server transaction it does not match (another copy of one request that forked
    /// and came back by another path) gets 482 Loop Detected.
    private func mergedRequest(_ request: SIPRequest, key: TransactionKey) -> RequestRejection? {
        guard let to = (try? request.headers.to()) ?? nil, to.tag == nil,
              let cseq = (try? request.headers.cseq()) ?? nil else { return nil }
        let fromTag = (try? request.headers.fromTag()) ?? nil
        let callID = request.headers.callID
        for (other, record) in servers where other != key {
            let earlier = record.request
            guard earlier.headers.callID == callID, let earlierCSeq = (try? earlier.headers.cseq()) ?? nil,
                  earlierCSeq == cseq, ((try? earlier.headers.fromTag()) ?? nil) == fromTag else { continue }
            return .loopDetected
        }
        return nil
    }

    /// The response that carries a ``RequestRejection`` (To tag added, §8.2.6.2).
    func refusal(_ rejection: RequestRejection, to request: SIPRequest) -> SIPResponse {
        var response = automaticResponse(to: request, status: rejection.statusCode, reason: rejection.reasonPhrase,
                                          toTag: true)
        for (name, value) in rejection.responseHeaders { response.headers.add(name, value) }
        return response
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
        let hasTag = ((try? request.headers.toTag()) ?? nil) != nil
        var response = SIPResponse(to: request, statusCode: status, reasonPhrase: reason,
                                   toTag: toTag && !hasTag ? ids.tag() : nil)
        response.headers.add(.server, settings.userAgent)
        return response
    }
}
