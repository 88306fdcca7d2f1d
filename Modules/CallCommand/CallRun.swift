import CallLoad
import CallSession
import Capture
import LineRunner
import Media
import SIPCore
import SIPDialog
import SIPTransport
import ToolSupport

/// One `astra-call dial` or `answer` run: register the line, place or take one call, drive it
/// as the options ask (media, DTMF, hold, duration), print its events, hang up, unregister.
struct CallRun {
    enum Mode: Sendable {
        case dial(SIPURI)
        case answer(after: Duration, reject: Int?, wait: Duration?)
    }

    struct Options: Sendable {
        var mode: Mode
        /// answer --auto: keep answering calls until interrupted.
        var keepAnswering = false
        var timeout: Duration = .seconds(60)
        var registerTimeout: Duration = .seconds(10)
        var dtmf: [DTMFDigit] = []
        var dtmfAfter: Duration = .milliseconds(500)
        var duration: Duration?
        var holdAfter: Duration?
        var resumeAfter: Duration?
        var iceRestartAfter: Duration?
        /// `--stun HOST[:PORT]`, resolved when the run starts (docs/decisions.md D15).
        var stun: (host: String, port: UInt16)?
        /// `--turn turn:HOST[:PORT]` with `--turn-user` / `--turn-password-file`, resolved when
        /// the run starts.
        var turn: (host: String, port: UInt16, user: String, password: String)?
        var call = CallOptions()
        var mediaAddress: String?
        /// `--sip-trace`, `--sip-trace-file`, `--pcap` (with the call's RTP), `--hep`.
        var capture: CaptureHub?
        var verbosity = 0
        var seed: UInt64?
        var expectToneShare = 0.5
        /// Single-key commands on the terminal (``CallKey``) and a status line.
        var interactive = false
    }

    /// A scheduled step of the call script.
    enum Step: Sendable { case answer, dtmf, hangUp, hold, resume, iceRestart }

    enum Input: Sendable {
        case line(LineEvent)
        case endpoint(EndpointEvent)
        case call(CallEvent)
        case step(Step)
        case deadline(String)
        case signal(ToolSignal)
        /// Interactive mode: a key typed, and the status line's clock.
        case key(CallKey)
        case tick
    }

    let setup: LineSetup
    let options: Options
    let audio: CallAudio
    let context: ToolContext

    func run() async -> ExitCode {
        // SRTP's first use costs 20-60 ms (lazy OpenSSL set-up, docs/decisions.md D15): pay it
        // while registering, not between an INVITE and its answer.
        if options.call.mediaMode != .rtp || options.call.srtp { SRTPContext.warmUp() }
        var options = self.options
        if let (host, port) = options.stun {
            options.call.webRTC.stunServer = await Self.stunServer(host, port, context)
        }
        if let turn = options.turn {
            if let server = await Self.stunServer(turn.host, turn.port, context, option: "--turn") {
                var t = TURNClient.Configuration(server: server, username: turn.user, password: turn.password)
                t.software = AstraVersion.product("astra-call")
                options.call.webRTC.turn = t
            }
        }
        let clock = ContinuousClock()
        let ids: any IdentifierSource =
            options.seed.map { SeededIdentifierSource(seed: $0) } ?? SystemIdentifierSource()
        let line = CallLines.Entry(
            setup, capture: options.capture, verbosity: options.verbosity, diagnostics: context.diagnostics,
            clock: clock, ids: ids)
        let (flow, endpoint, registration, callTraffic, callFeed) =
            (line.flow, line.endpoint, line.registration, line.callTraffic, line.callFeed)
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        // Interactive: SIGHUP (the terminal closed) hangs up like SIGINT.
        let signals: [ToolSignal] = options.interactive ? [.interrupt, .terminate, .hangup] : [.interrupt, .terminate]
        var tasks = [
            Task { for await event in registration.events { feed.yield(.line(event)) } },
            Task { for await event in callTraffic { feed.yield(.endpoint(event)) } },
            Task { for await signal in await SignalEvents.stream(signals) { feed.yield(.signal(signal)) } },
        ]
        let terminal = options.interactive ? RawTerminal.enter(0) : nil
        let statusLine = StatusLine()
        var console = CallConsole()
        if terminal != nil {
            tasks.append(Task { for await byte in TerminalKeys.stream(0) { if let key = CallKey(byte: byte) { feed.yield(.key(key)) } } })
            tasks.append(
                Task {
                    while !Task.isCancelled {
                        do { try await clock.sleep(for: .seconds(1)) } catch { return }
                        feed.yield(.tick)
                    }
                })
        }
        func schedule(_ input: Input, after delay: Duration) {
            tasks.append(
                Task {
                    do { try await clock.sleep(for: delay) } catch { return }
                    feed.yield(input)
                })
        }
        // dial --timeout bounds the whole set-up, registration included: from now to the answer.
        let setUpBound: Duration? = if case .dial = options.mode { options.timeout } else { nil }
        let startedAt = clock.now
        schedule(.deadline("registration"), after: min(options.registerTimeout, setUpBound ?? options.registerTimeout))
        if let setUpBound { schedule(.deadline("set-up"), after: setUpBound) }
        await registration.start()

        let report = CallReport(output: context.output)
        var call: Call<ContinuousClock>?
        var registered = false
        var answered = false
        var interrupted = false
        var setUpTimedOut = false
        var outcome: (ExitCode, String?)?
        loop: for await input in inputs {
            // The status line is redrawn each second (.tick) and cleared before anything else prints.
            if case .tick = input {} else { statusLine.clear() }
            switch input {
            case .line(.registration(.registered(let info))) where !registered:
                registered = true
                report.registered(setup: setup, expires: Int(info.grantedExpires))
                guard let binding = await endpoint.binding else { outcome = (.network, "no local binding"); break loop }
                var callOptions = options.call
                if let setUpBound {
                    // What registering took comes off the INVITE's no-answer time (one bound in all).
                    callOptions.invite.noAnswerTimeout = max(.milliseconds(1), setUpBound - (clock.now - startedAt))
                }
                let flowLocal = await flow.info?.local?.uriHost
                callOptions.mediaHost = options.mediaAddress ?? CallFigures.mediaHost(local: flowLocal)
                switch options.mode {
                case .dial(let target):
                    do {
                        let placed = try Call(
                            calling: target, from: SIPNameAddress(displayName: setup.line.displayName, uri: setup.aor),
                            endpoint: endpoint, binding: binding, credentials: setup.credentials, options: callOptions,
                            source: audio.source, sink: audio.sink, clock: clock, ids: ids)
                        call = placed
                        tasks.append(Task { for await event in placed.events { feed.yield(.call(event)) } })
                        report.calling(target: target, callID: placed.callID)
                        await placed.start()
                    } catch {
                        outcome = (.failure, error.description)
                        break loop
                    }
                case .answer(_, _, let wait):
                    report.waiting()
                    if let wait { schedule(.deadline("an incoming call"), after: wait) }
                }
            case .line(.registration(.failed(let failure))) where !registered:
                outcome = (Self.exitCode(for: failure), failure.description)
                break loop
            case .line(.flowDown(let error)) where !registered:
                outcome = (error.exitCode, error.toolMessage)
                break loop
            case .line:
                continue
            case .endpoint(let event):
                if let call, case .request(let incoming) = event, !call.owns(incoming.request.headers),
                    incoming.request.method == .invite
                {
                    await endpoint.respond(
                        to: incoming, with: SIPResponse(to: incoming.request, statusCode: 486, toTag: "busy"))
                } else if let call {
                    await call.handle(event)
                } else if case .request(let incoming) = event, case .answer(let after, _, _) = options.mode {
                    guard incoming.request.method == .invite, let binding = await endpoint.binding else {
                        await endpoint.respond(
                            to: incoming, with: SIPResponse(to: incoming.request, statusCode: 481, toTag: "none"))
                        continue
                    }
                    var callOptions = options.call
                    let flowLocal = await flow.info?.local?.uriHost
                    callOptions.mediaHost = options.mediaAddress ?? CallFigures.mediaHost(local: flowLocal)
                    do {
                        let taken = try Call(
                            incoming: incoming, endpoint: endpoint, binding: binding,
                            credentials: setup.credentials, options: callOptions,
                            source: audio.source, sink: audio.sink, clock: clock, ids: ids)
                        call = taken
                        tasks.append(Task { for await event in taken.events { feed.yield(.call(event)) } })
                        report.incoming(incoming.request, callID: taken.callID)
                        await taken.start()
                        await taken.ring()
                        schedule(.step(.answer), after: after)
                    } catch {
                        await endpoint.respond(
                            to: incoming, with: SIPResponse(to: incoming.request, statusCode: 400, toTag: "bad"))
                        context.diagnostics.warning(error.description)
                    }
                } else if case .request(let incoming) = event {
                    await endpoint.respond(
                        to: incoming, with: SIPResponse(to: incoming.request, statusCode: 481, toTag: "none"))
                }
            case .call(let event):
                report.note(event)
                console.note(event, at: clock.now)
                switch event {
                case .answered:
                    answered = true
                    if terminal != nil { await console.draw(on: statusLine, call: call, now: clock.now) }
                    if !options.dtmf.isEmpty { schedule(.step(.dtmf), after: options.dtmfAfter) }
                    if let duration = options.duration { schedule(.step(.hangUp), after: duration) }
                    if let hold = options.holdAfter { schedule(.step(.hold), after: hold) }
                    if let resume = options.resumeAfter { schedule(.step(.resume), after: resume) }
                    if let restart = options.iceRestartAfter { schedule(.step(.iceRestart), after: restart) }
                case .ended(let reason, _):
                    if options.keepAnswering && !interrupted {
                        call = nil  // --auto: wait for the next call
                        report.waiting()
                        continue
                    }
                    outcome = Self.outcome(of: reason, interrupted: interrupted, mode: options.mode)
                    if setUpTimedOut {
                        outcome = (.network, "timeout: not answered within \(options.timeout) (--timeout)")
                    }
                    break loop
                default:
                    break
                }
            case .step(let step):
                guard let call else { continue }
                switch step {
                case .answer:
                    if case .answer(_, let reject?, _) = options.mode {
                        await call.reject(status: reject)
                    } else {
                        await call.answer()
                    }
                case .dtmf:
                    report.dtmfSent(options.dtmf)
                    await call.sendDTMF(options.dtmf)
                case .hangUp: await call.hangUp()
                case .hold: await call.hold()
                case .resume: await call.resume()
                case .iceRestart: await call.restartICE()
                }
            case .deadline("set-up"):
                guard !answered, !interrupted, !setUpTimedOut else { continue }
                let waited = CallFigures.milliseconds(clock.now - startedAt)
                if call != nil {
                    // The INVITE's own no-answer timer ends it now (reason no_answer); this is the
                    // backstop for what came before the INVITE left (ICE gathering).
                    schedule(.deadline("set-up backstop"), after: .milliseconds(500))
                    continue
                }
                report.timeout(waitingFor: registered ? "call set-up" : "registration", afterMilliseconds: waited)
                outcome = (.network, "timeout after \(options.timeout) (--timeout) waiting for the "
                           + (registered ? "call set-up" : "registration"))
                break loop
            case .deadline("set-up backstop"):
                guard !answered, !interrupted, !setUpTimedOut, let call else { continue }
                setUpTimedOut = true
                report.timeout(waitingFor: "answer", afterMilliseconds: CallFigures.milliseconds(clock.now - startedAt))
                await call.hangUp()  // CANCEL; its `ended` follows, then exit 3
                schedule(.deadline("hang-up"), after: .seconds(5))
            case .deadline(let what):
                if what == "registration" && registered { continue }
                if call != nil && what != "hang-up" { continue }
                if what == "registration" {
                    report.timeout(waitingFor: "registration", afterMilliseconds: CallFigures.milliseconds(clock.now - startedAt))
                }
                outcome = (.network, "timeout waiting for \(what)")
                break loop
            case .signal(let signal):
                if let call, !interrupted {
                    interrupted = true
                    context.diagnostics.info("\(signal): hanging up")
                    await call.hangUp()
                    schedule(.deadline("hang-up"), after: .seconds(5))
                    continue
                }
                outcome = (
                    registered ? .success : .network, registered ? nil : "interrupted by \(signal) before registering"
                )
                break loop
            case .tick:
                await console.draw(on: statusLine, call: call, now: clock.now)
            case .key(let key):
                switch key {
                case .dtmf(let digit):
                    guard let call, console.answered else {
                        context.diagnostics.warning("no call in progress for DTMF \(digit)")
                        continue
                    }
                    report.dtmfSent([digit])
                    await call.sendDTMF([digit])
                case .hangUp, .quit:
                    if key == .quit { interrupted = true }  // --auto: no next call
                    if let call {
                        await call.hangUp()
                        schedule(.deadline("hang-up"), after: .seconds(5))
                    } else if key == .quit || registered {
                        outcome = (registered ? .success : .network, registered ? nil : "quit before registering")
                        break loop
                    }
                case .holdToggle:
                    guard let call, console.answered else { continue }
                    if console.heldByUs { await call.resume() } else { await call.hold() }
                case .statistics:
                    guard let call else { continue }
                    report.statistics(await call.statistics())
                case .help:
                    FileDescriptorSink.standardError.write(CallKey.keyList + "\n")
                }
                await console.draw(on: statusLine, call: call, now: clock.now)
            }
        }
        // The terminal is the user's again before anything else can end the process.
        statusLine.clear()
        terminal?.restore()
        // Our BYE (or CANCEL, or 200 to their BYE) must leave before the flow closes: an exit
        // right after `ended` could drop it, leaving the peer in the call.
        await call?.settle(within: .seconds(2))
        for task in tasks { task.cancel() }
        await registration.stop(within: registered ? .seconds(2) : .zero)
        callFeed.finish()
        var final = outcome ?? (.network, "flow ended")
        if let meter = audio.toneMeter, final.0 == .success {
            let (heard, tone) = meter.seconds
            let ok = heard > 0 && tone >= heard * options.expectToneShare
            report.toneCheck(frequency: meter.frequency, heard: heard, tone: tone, ok: ok)
            if !ok { final = (.failure, "expected a \(meter.frequency) Hz tone: heard it \(tone) s of \(heard) s") }
        }
        do { try audio.finish() } catch {
            final = (.failure, error.description)
        }
        if let message = final.1 {
            if context.output.format == .text {
                // The summary block already said how the call ended; other failures in words.
                if !message.hasPrefix("call ended:") {
                    context.diagnostics.error(FailureWords.explain(message, setup: setup))
                }
            } else {
                // The JSON events keep the machine text; the one stderr line is for a person.
                context.diagnostics.error(FailureWords.explain(message, setup: setup))
            }
        }
        return final.0
    }

    /// The `--stun` server's address (an IPv4 one first: media is IPv4); nil with a warning when
    /// the name does not resolve — the call then offers host candidates only.
    static func stunServer(
        _ host: String, _ port: UInt16, _ context: ToolContext, option: String = "--stun"
    ) async -> UDPSocket.Address? {
        do {
            let addresses = try await Resolver.resolve(host: host, port: port, transport: .udp)
            guard let address = addresses.first(where: { !$0.isIPv6 }) ?? addresses.first else { return nil }
            return UDPSocket.Address(host: address.ip, port: port)
        } catch {
            context.diagnostics.warning("\(option) \(host): \(error); no candidates from it")
            return nil
        }
    }
}
