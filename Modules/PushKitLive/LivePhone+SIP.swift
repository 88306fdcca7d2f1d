import CallSession
import Media
import PushKitEmu
import SIPCore
import SIPDialog

/// The phone's SIP side: REGISTER over the line's flow, INVITE / CANCEL / BYE into the policy
/// and the CallSession `Call`s.
extension LivePhone {
    /// The `register` op: a fresh process builds its stack and registers; a running stack
    /// whose flow died is rebuilt; a live one is left alone (it refreshes by itself).
    func register() {
        if let sip, registered {
            _ = sip
            let gen = generation
            later(0) { $0.registrationFinished(true, generation: gen) }
            return
        }
        guard sip == nil else { return }  // registering already
        let stack: LiveSIPStack
        do throws(LiveError) {
            stack = try LiveSIPStack(
                line: config.line, userAgent: "astra-pushsim-phone", push: config.rfc8599 ? config.pushParameters : nil,
                sipTrace: config.sipTrace)
        } catch {
            timeline.record(.live("phone_error", [("detail", .text(error.description))]))
            return
        }
        sip = stack
        let gen = generation
        tasks.append(
            Task { [weak self] in
                for await event in stack.registration.events {
                    await self?.lineEvent(event, stack: stack, generation: gen)
                }
            })
        tasks.append(
            Task { [weak self] in
                for await event in stack.callTraffic { await self?.callTraffic(event, stack: stack, generation: gen) }
            })
        perform { await stack.start() }
    }

    func lineEvent(_ event: LineEvent, stack: LiveSIPStack, generation gen: Int) {
        guard gen == generation, sip === stack else { return }
        switch event {
        case .registration(.registered(let result)):
            let first = !registered
            registered = true
            if first {
                timeline.record(.live("phone_registered", [("granted_expires", .int(result.grantedExpires))]))
                registrationFinished(true, generation: gen)
            }
        case .registration(.failed):
            registered = false
            registrationFinished(false, generation: gen)
        case .flowDown, .registration(.flowLost):
            registered = false
        default:
            break
        }
    }

    func callTraffic(_ event: EndpointEvent, stack: LiveSIPStack, generation gen: Int) async {
        guard gen == generation, sip === stack else { return }
        switch event {
        case .request(let incoming) where incoming.request.method == .invite:
            if let callID = incoming.request.headers.callID, let c = directory.known(callID), sipCalls[c] != nil {
                await sipCalls[c]?.handle(event)  // a re-INVITE
                return
            }
            await invite(incoming, stack: stack)
        case .request(let incoming):
            if let c = call(for: incoming.request.headers), let call = sipCalls[c] {
                await call.handle(event)
            } else {
                await stack.endpoint.respond(
                    to: incoming, with: SIPResponse(to: incoming.request, statusCode: 481, toTag: "none"))
            }
        case .ack(let ack):
            if let c = call(for: ack.headers) { await sipCalls[c]?.handle(event) }
        case .cancelled(let cancelled):
            guard let c = call(for: cancelled.request.headers), let call = sipCalls[c] else { return }
            await call.handle(event)
            record(.cancelReceived(call: c))
            beginCallback()
            policy.didReceiveCancel(call: c, &ctx)
            applyOps()
            checkCallerLeft(c)
            flush()
        case .strayResponse(let response):
            if let c = call(for: response.headers) { await sipCalls[c]?.handle(event) }
        default:
            break
        }
    }

    func call(for headers: SIPHeaders) -> Int32? { headers.callID.flatMap { directory.known($0) } }

    /// A new INVITE: a `Call` takes it (100 Trying went out), then the policy decides.
    func invite(_ incoming: IncomingRequest, stack: LiveSIPStack) async {
        let callID = incoming.request.headers.callID ?? "?"
        let c = directory.index(of: callID)
        guard let binding = await stack.binding else { return }
        var options = CallOptions()
        options.mediaHost = Self.mediaHost(await stack.localHost)
        options.invite.userAgent = "astra-pushsim-phone"
        options.rtpTimeout = nil
        let sink = RecordingSink()
        let taken: Call<ContinuousClock>
        do {
            taken = try Call(
                incoming: incoming, endpoint: stack.endpoint, binding: binding, options: options,
                source: ToneGenerator(frequencies: [config.toneHz]), sink: sink, clock: ContinuousClock(),
                ids: stack.ids)
        } catch {
            await stack.endpoint.respond(
                to: incoming, with: SIPResponse(to: incoming.request, statusCode: 500, toTag: "err"))
            return
        }
        sipCalls[c] = taken
        recordings[c] = sink
        await taken.start()
        tasks.append(
            Task { [weak self] in
                for await event in taken.events {
                    if case .ended = event { await self?.sipCallEnded(c, call: taken) }
                }
            })
        record(.inviteReceived(call: c))
        let push = pushes.lastIndex { $0.call == c }.map(Int32.init) ?? -1
        beginCallback()
        policy.didReceiveInvite(IncomingInvite(call: c, pushID: push), &ctx)
        applyOps()
    }

    /// The SIP call ended (BYE, CANCEL, rejection): the SIP glue ends its CallKit call.
    func sipCallEnded(_ c: Int32, call: Call<ContinuousClock>) {
        if sipCalls[c] === call { sipCalls[c] = nil }
        for i in callkit.indices where callkit[i].active && callkit[i].call == c && callkit[i].invite == c {
            if okSent.contains(c) {
                callkit[i].ended = true
                record(.callkitEnd(uuid: Int32(i), reason: .remoteEnded))
            }
        }
    }

    static func mediaHost(_ local: String?) -> String {
        guard let host = local else { return "127.0.0.1" }
        let parts = host.split(separator: ".")
        if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }), host != "0.0.0.0" { return host }
        return "127.0.0.1"
    }
}
