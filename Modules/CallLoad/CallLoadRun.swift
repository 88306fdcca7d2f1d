import AstraJSON
import CallSession
import Capture
import LineRunner
import Media
import SIPCore
import SIPDialog
import ToolSupport

/// `astra-call load`: calls from the registered lines (``CallLines``) to the targets, started
/// as ``LoadRunControl`` allows (`--rate`, `--concurrency`, `--calls` or `--duration`,
/// `--run-timeout`, SIGINT/SIGTERM), each held `--hold` seconds after its answer and hung up
/// (BYE). Every call is a ``CallSession/Call`` — the one-call engine of `dial` — with a tone of
/// its own; one loop drives every line and call. Each end is a `call_result` (``CallLoadTally``),
/// the run ends with `load_summary`; progress is a line on a terminal's stderr only.
package struct CallLoadRun {
    package struct Options: Sendable {
        package var targets: [String] = []
        package var concurrency = 10
        package var rate: Double?
        package var calls: Int?
        package var duration: Duration?
        package var runTimeout: Duration?
        package var hold: Duration = .seconds(10)
        package var call = CallOptions()
        package var mediaAddress: String?
        package var capture: CaptureHub?
        package var verbosity = 0
        package var seed: UInt64?
        package var expectToneShare = 0.5
        package var audio: @Sendable () throws(ToolError) -> CallAudio

        /// `audio()`: a fresh source and sink (tone, meter) for each call placed.
        package init(audio: @escaping @Sendable () throws(ToolError) -> CallAudio) { self.audio = audio }
    }

    package let setups: [LineSetup]
    package let options: Options
    package let context: ToolContext

    package init(setups: [LineSetup], options: Options, context: ToolContext) {
        (self.setups, self.options, self.context) = (setups, options, context)
    }

    struct Live {
        var index: Int
        var line: Int
        var target: String
        var call: Call<ContinuousClock>
        var audio: CallAudio
        var answered = false
    }

    package func run() async -> ExitCode {
        if options.call.mediaMode != .rtp || options.call.srtp { SRTPContext.warmUp() }
        let clock = ContinuousClock()
        let ids: any IdentifierSource =
            options.seed.map { SeededIdentifierSource(seed: $0) } ?? SystemIdentifierSource()
        let targets: [SIPURI]
        do { targets = try Self.targets(options.targets, domain: setups[0].line.domain) } catch {
            context.diagnostics.error(error.message)
            return error.exitCode
        }
        let started = await CallLines.start(
            setups, capture: options.capture, verbosity: options.verbosity, diagnostics: context.diagnostics,
            clock: clock, ids: ids)
        let (lines, inputs, feed) = (started.lines, started.inputs, started.feed)
        var tasks = started.tasks
        tasks.append(
            Task {
                while !Task.isCancelled {
                    do { try await clock.sleep(for: .milliseconds(20)) } catch { return }
                    feed.yield(.tick)
                }
            })
        let output = context.output
        let progress = StatusLine()
        let terminal = FileDescriptorSink.standardError.isTerminal
        var registered = Set<Int>(), failedLines = Set<Int>()
        var control: LoadRunControl?
        var origin = clock.now
        var cpuAtStart = 0.0
        var tally = CallLoadTally()
        var live: [String: Live] = [:]
        var settling: [Task<Void, Never>] = []
        var nextLine = 0
        var hangingUp = false
        let registerBound = clock.now + .seconds(10)
        func now() -> Duration { clock.now - origin }
        loop: for await input in inputs {
            switch input {
            case .line(let index, .registration(.registered)):
                registered.insert(index)
            case .line(let index, .registration(.failed(let failure))) where !registered.contains(index):
                failedLines.insert(index)
                context.diagnostics.error("\(setups[index].aor): \(failure.description)")
            case .line:
                continue
            case .endpoint(let index, let event):
                if let id = CallLines.callID(of: event) {
                    if let entry = live[id] {
                        await entry.call.handle(event)
                    } else if case .request(let incoming) = event {
                        await lines.entries[index].endpoint.respond(
                            to: incoming, with: SIPResponse(to: incoming.request, statusCode: 481, toTag: "none"))
                    }
                } else {
                    for entry in live.values where entry.line == index { await entry.call.handle(event) }
                }
            case .call(let id, let event):
                guard var entry = live[id] else { continue }
                switch event {
                case .answered:
                    entry.answered = true
                    live[id] = entry
                    tasks.append(
                        Task { [hold = options.hold] in
                            do { try await clock.sleep(for: hold) } catch { return }
                            feed.yield(.due(id, .hangUp))
                        })
                case .ended(let reason, let stats):
                    live[id] = nil
                    let meter = entry.audio.toneMeter
                    let result = CallLoadTally.Result(
                        index: entry.index, from: setups[entry.line].aor.description, target: entry.target,
                        callID: id, reason: reason, stats: stats,
                        tone: meter.map { m in (m.frequency, m.seconds.heard, m.seconds.tone) },
                        toneShare: options.expectToneShare,
                        abandoned: hangingUp && !entry.answered)
                    let ok = tally.record(result)
                    control?.finished(
                        ok: ok, latency: stats.setupMilliseconds.map { .microseconds(Int64($0 * 1000)) },
                        abandoned: result.abandoned)
                    output.emit("call_result", result.json)
                    let call = entry.call
                    settling.append(Task { await call.settle(within: .seconds(2)) })
                default: break
                }
            case .due(let id, _):
                await live[id]?.call.hangUp()
            case .signal(let signal):
                guard !hangingUp else { break loop }  // a second signal: leave now
                context.diagnostics.info("\(signal): ending \(live.count) calls")
                guard control != nil else { break loop }
                control?.stop(.signal)
            case .tick:
                if control == nil {
                    let settled = registered.count + failedLines.count == setups.count
                    guard settled || clock.now >= registerBound else { continue }
                    guard !registered.isEmpty else {
                        context.diagnostics.error("no line registered")
                        break loop
                    }
                    origin = clock.now
                    cpuAtStart = LoadReport.cpuSeconds()
                    control = LoadRunControl(
                        settings: .init(
                            concurrency: options.concurrency, lines: options.calls ?? setups.count,
                            rate: options.rate, runTimeout: options.runTimeout, duration: options.duration),
                        now: now())
                }
                guard var run = control else { continue }
                if let report = run.tick(now: now()), terminal {
                    progress.show("astra-call: " + CallLoadTally.progressLine(report))
                }
                if run.abandonsRunning && !hangingUp {
                    hangingUp = true
                    for entry in live.values { await entry.call.hangUp() }  // BYE, or CANCEL before the answer
                    let bound = clock.now + .seconds(5)
                    tasks.append(
                        Task {
                            try? await clock.sleep(until: bound)
                            feed.yield(.signal(.terminate))
                        })
                }
                while run.admit(now: now()) {
                    let index = run.started - 1
                    let line = registered.sorted()[nextLine % registered.count]
                    nextLine += 1
                    let target = targets[index % targets.count]
                    if let entry = await place(index, line: line, target: target, lines: lines, clock: clock, ids: ids) {
                        let id = entry.call.callID
                        live[id] = entry
                        tasks.append(Task { for await event in entry.call.events { feed.yield(.call(id, event)) } })
                        await entry.call.start()
                    } else {
                        run.finished(ok: false, latency: nil)
                        tally.noteUnplaced()
                    }
                }
                control = run
                if run.isDone { break loop }
            }
        }
        if terminal { progress.clear() }
        for entry in live.values { await entry.call.settle(within: .seconds(1)) }
        for task in settling { await task.value }
        for task in tasks { task.cancel() }
        await lines.stop(within: .seconds(2))
        guard let run = control else { return registered.isEmpty ? .network : .failure }
        let settings: JSONObject = [
            "concurrency": .int(options.concurrency), "rate_limit": options.rate.map(JSONValue.double) ?? .null,
            "hold_s": .double(Double(options.hold.components.seconds) + Double(options.hold.components.attoseconds) / 1e18),
            "lines": .int(setups.count), "targets": .int(targets.count),
        ]
        let summary = tally.summary(
            run.counts, stopped: run.stopReason ?? .completed, settings: settings,
            wallMilliseconds: CallFigures.milliseconds(now()), cpuSeconds: LoadReport.cpuSeconds() - cpuAtStart)
        output.emit("load_summary", summary, text: CallLoadTally.summaryText(summary))
        switch run.stopReason {
        case .runTimeout?: return .network
        case .signal?: return .success
        default: return run.counts.failed == 0 ? .success : .failure
        }
    }

    /// One call from line `line` to `target`, not started; nil (with a warning) when it cannot be made.
    private func place(
        _ index: Int, line: Int, target: SIPURI, lines: CallLines, clock: ContinuousClock, ids: any IdentifierSource
    ) async -> Live? {
        let entry = lines.entries[line]
        guard let binding = await entry.endpoint.binding else { return nil }
        var callOptions = options.call
        callOptions.mediaHost = await lines.mediaHost(line, override: options.mediaAddress)
        do {
            let audio = try options.audio()
            let call = try Call(
                calling: target, from: SIPNameAddress(displayName: entry.setup.line.displayName, uri: entry.setup.aor),
                endpoint: entry.endpoint, binding: binding, credentials: entry.setup.credentials,
                options: callOptions, source: audio.source, sink: audio.sink, clock: clock, ids: ids)
            return Live(index: index, line: line, target: target.description, call: call, audio: audio)
        } catch {
            context.diagnostics.warning("call \(index): \(error)")
            return nil
        }
    }

    /// The targets as SIP URIs: `sip:`/`sips:` URIs, or users/numbers in the first line's domain.
    package static func targets(_ texts: [String], domain: String) throws(ToolError) -> [SIPURI] {
        guard !texts.isEmpty else { throw ToolError(.usage, "load needs a target or --targets FILE") }
        return try texts.map { text throws(ToolError) in
            let uriText = text.hasPrefix("sip:") || text.hasPrefix("sips:") ? text : "sip:\(text)@\(domain)"
            guard let uri = try? SIPURI(parsing: uriText) else {
                throw ToolError(.usage, "target '\(text)' is not a SIP URI")
            }
            return uri
        }
    }
}
