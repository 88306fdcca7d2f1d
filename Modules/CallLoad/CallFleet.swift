import AstraJSON
import CallSession
import Capture
import LineRunner
import Media
import SIPCore
import SIPDialog
import ToolSupport

/// `astra-call answer --load FILE`: every line of the file registered and answering, any number
/// of calls at once on each — the answering side of a load run (`astra-call load`) when no PBX
/// echo is at hand. Each call is a ``CallSession/Call`` as in `answer` (ring, `--after`, answer
/// or `--reject`), with its own audio from the options (echo, tone, record to FILE-N.wav); one
/// loop drives every line and call. Each call's end is an `ended` event with its line and
/// Call-ID (and each answer an `answered` event); SIGINT/SIGTERM hang up what is up (BYE), unregister, and print `fleet_summary`.
package struct CallFleet {
    package struct Options: Sendable {
        package var after: Duration = .zero
        package var reject: Int?
        package var call = CallOptions()
        package var mediaAddress: String?
        package var capture: CaptureHub?
        package var verbosity = 0
        package var seed: UInt64?
        package var audio: @Sendable (_ index: Int) throws(ToolError) -> CallAudio

        /// `audio(i)`: the audio of the i-th call taken (its own recording file, say).
        package init(audio: @escaping @Sendable (_ index: Int) throws(ToolError) -> CallAudio) { self.audio = audio }
    }

    package let setups: [LineSetup]
    package let options: Options
    package let context: ToolContext

    package init(setups: [LineSetup], options: Options, context: ToolContext) {
        (self.setups, self.options, self.context) = (setups, options, context)
    }

    package func run() async -> ExitCode {
        if options.call.mediaMode != .rtp || options.call.srtp { SRTPContext.warmUp() }
        let clock = ContinuousClock()
        let ids: any IdentifierSource =
            options.seed.map { SeededIdentifierSource(seed: $0) } ?? SystemIdentifierSource()
        let started = await CallLines.start(
            setups, capture: options.capture, verbosity: options.verbosity, diagnostics: context.diagnostics,
            clock: clock, ids: ids)
        let (lines, inputs, feed) = (started.lines, started.inputs, started.feed)
        var tasks = started.tasks
        let output = context.output
        var calls: [String: (line: Int, call: Call<ContinuousClock>, audio: CallAudio)] = [:]
        var registered = Set<Int>(), failedLines = Set<Int>()
        var taken = 0, answered = 0, byes = 0, endedByUs = 0, rejected = 0, failed = 0
        var stopping = false
        var settling: [Task<Void, Never>] = []
        loop: for await input in inputs {
            switch input {
            case .line(let index, .registration(.registered)):
                guard registered.insert(index).inserted else { continue }
                output.emit("registered", ["aor": .string(setups[index].aor.description), "line": .int(index)])
                if registered.count + failedLines.count == setups.count {
                    output.emit("waiting", ["lines": .int(registered.count)], text: "\(registered.count) lines waiting for calls")
                }
            case .line(let index, .registration(.failed(let failure))) where !registered.contains(index):
                failedLines.insert(index)
                context.diagnostics.error("\(setups[index].aor): \(failure.description)")
                if failedLines.count == setups.count { break loop }
            case .line:
                continue
            case .endpoint(let index, let event):
                if let id = CallLines.callID(of: event), let entry = calls[id] {
                    await entry.call.handle(event)
                    continue
                }
                guard case .request(let incoming) = event else {
                    if CallLines.callID(of: event) == nil {
                        for entry in calls.values where entry.line == index { await entry.call.handle(event) }
                    }
                    continue
                }
                let endpoint = lines.entries[index].endpoint
                guard incoming.request.method == .invite, !stopping, let binding = await endpoint.binding else {
                    await endpoint.respond(
                        to: incoming, with: SIPResponse(to: incoming.request, statusCode: 481, toTag: "none"))
                    continue
                }
                var callOptions = options.call
                callOptions.mediaHost = await lines.mediaHost(index, override: options.mediaAddress)
                do {
                    let audio = try options.audio(taken)
                    let call = try Call(
                        incoming: incoming, endpoint: endpoint, binding: binding,
                        credentials: setups[index].credentials, options: callOptions,
                        source: audio.source, sink: audio.sink, clock: clock, ids: ids)
                    taken += 1
                    let id = call.callID
                    calls[id] = (index, call, audio)
                    tasks.append(Task { for await event in call.events { feed.yield(.call(id, event)) } })
                    await call.start()
                    await call.ring()
                    tasks.append(
                        Task { [after = options.after] in
                            do { try await clock.sleep(for: after) } catch { return }
                            feed.yield(.due(id, .answer))
                        })
                } catch {
                    await endpoint.respond(
                        to: incoming, with: SIPResponse(to: incoming.request, statusCode: 500, toTag: "fail"))
                    context.diagnostics.warning("\(setups[index].aor): \(error)")
                }
            case .due(let id, _):
                guard let entry = calls[id], !stopping else { continue }
                if let status = options.reject {
                    rejected += 1
                    await entry.call.reject(status: status)
                } else {
                    await entry.call.answer()
                }
            case .call(let id, let event):
                guard let entry = calls[id] else { continue }
                switch event {
                case .answered:
                    answered += 1
                    output.emit(
                        "answered", ["line": .string(setups[entry.line].aor.description), "call_id": .string(id)])
                case .ended(let reason, let stats):
                    calls[id] = nil
                    if reason == .remoteHangUp { byes += 1 } else if reason == .localHangUp { endedByUs += 1 }
                    if !reason.isNormalClearing && options.reject == nil { failed += 1 }
                    var fields: JSONObject = [
                        "line": .string(setups[entry.line].aor.description), "call_id": .string(id),
                        "reason": .string(reason.name),
                    ]
                    if let status = reason.status { fields["status"] = .int(status) }
                    fields["stats"] = .object(CallFigures.json(stats))
                    output.emit("ended", fields)
                    do { try entry.audio.finish() } catch { context.diagnostics.warning(error.description) }
                    let call = entry.call
                    settling.append(Task { await call.settle(within: .seconds(2)) })
                    if stopping && calls.isEmpty { break loop }
                default: break
                }
            case .signal(let signal):
                guard !stopping else { break loop }  // a second signal: leave now
                stopping = true
                context.diagnostics.info("\(signal): hanging up \(calls.count) calls")
                if calls.isEmpty { break loop }
                for entry in calls.values { await entry.call.hangUp() }
                tasks.append(
                    Task {
                        do { try await clock.sleep(for: .seconds(5)) } catch { return }
                        feed.yield(.tick)
                    })
            case .tick:
                if stopping { break loop }  // the hang-ups' bound
            }
        }
        for task in settling { await task.value }
        for entry in calls.values { await entry.call.settle(within: .seconds(1)) }
        for task in tasks { task.cancel() }
        await lines.stop(within: .seconds(2))
        output.emit(
            "fleet_summary",
            [
                "lines": .int(setups.count), "registered": .int(registered.count), "calls": .int(taken),
                "answered": .int(answered), "rejected": .int(rejected), "remote_hangups": .int(byes),
                "local_hangups": .int(endedByUs), "failed": .int(failed), "up_at_end": .int(calls.count),
            ],
            text: "\(registered.count)/\(setups.count) lines registered; \(taken) calls, \(answered) answered, "
                + "\(byes) ended by the caller's BYE, \(endedByUs) by ours, \(calls.count) still up")
        if registered.isEmpty { return .network }
        return failedLines.isEmpty && failed == 0 ? .success : .failure
    }
}
