import CallSession
import Capture
import LineRunner
import SIPCore
import SIPDialog
import SIPTransport
import ToolSupport

/// The registered lines of a load run (`astra-call load` places calls from them, `answer --load`
/// takes calls on them): per line the same flow, endpoint and ``LineRegistration`` one call uses
/// (astra-call's one-call run), each line's traffic tagged with its index on one stream, so one loop drives
/// every line and every call.
package struct CallLines: Sendable {
    /// What the loop of a load run reads: a line's registration or call traffic, a call's
    /// events (by Call-ID), a due step, a signal, the once-a-second tick.
    package enum Input: Sendable {
        case line(Int, LineEvent)
        case endpoint(Int, EndpointEvent)
        case call(String, CallEvent)
        case due(String, Due)
        case signal(ToolSignal)
        case tick
    }

    /// A step a call's timer asks for: answer after `--after`, hang up after `--hold`.
    package enum Due: Sendable { case answer, hangUp }

    package struct Entry: Sendable {
        package let setup: LineSetup
        package let flow: SIPFlow
        package let endpoint: SIPEndpoint
        package let registration: LineRegistration
        package let callFeed: AsyncStream<EndpointEvent>.Continuation
        package let callTraffic: AsyncStream<EndpointEvent>

        /// The flow, endpoint and registration of one line, as one call (`dial`, `answer`) and a
        /// load run both use them; the line's INVITEs and in-dialog traffic come on `callTraffic`.
        package init(
            _ setup: LineSetup, capture: CaptureHub?, verbosity: Int, diagnostics: Diagnostics,
            clock: ContinuousClock, ids: any IdentifierSource
        ) {
            flow = SIPFlow(
                target: setup.target,
                options: setup.connectionOptions(trace: capture?.sipTrace, verbosity: verbosity, diagnostics: diagnostics),
                clock: clock, ids: ids)
            var endpointSettings = EndpointSettings()
            endpointSettings.userAgent = AstraVersion.product("astra-call")
            endpoint = SIPEndpoint(channel: flow, clock: clock, ids: ids, settings: endpointSettings)
            let client = RegistrationClient(
                aor: setup.aor, registrar: setup.registrar, displayName: setup.line.displayName,
                credentials: setup.credentials,
                settings: setup.registrationSettings(expires: nil, keep: true, ids: ids, userAgent: "astra-call"),
                ids: ids)
            (callTraffic, callFeed) = AsyncStream.makeStream(of: EndpointEvent.self)
            registration = LineRegistration(endpoint: endpoint, client: client, clock: clock, calls: callFeed)
            self.setup = setup
        }
    }

    package let entries: [Entry]

    /// One flow, endpoint and registration per line (not started).
    package init(
        _ setups: [LineSetup], capture: CaptureHub?, verbosity: Int, diagnostics: Diagnostics,
        clock: ContinuousClock, ids: any IdentifierSource
    ) {
        entries = setups.map { setup in
            Entry(setup, capture: capture, verbosity: verbosity, diagnostics: diagnostics, clock: clock, ids: ids)
        }
    }

    /// The lines set up and started, and the one stream a run's loop reads: their events and
    /// SIGINT/SIGTERM (`feed` takes the run's own inputs; `tasks` are to cancel at the end).
    package static func start(
        _ setups: [LineSetup], capture: CaptureHub?, verbosity: Int, diagnostics: Diagnostics,
        clock: ContinuousClock, ids: any IdentifierSource
    ) async -> (
        lines: CallLines, inputs: AsyncStream<Input>, feed: AsyncStream<Input>.Continuation, tasks: [Task<Void, Never>]
    ) {
        let lines = CallLines(
            setups, capture: capture, verbosity: verbosity, diagnostics: diagnostics, clock: clock, ids: ids)
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        var tasks = await lines.start(into: feed)
        tasks.append(
            Task { for await s in await SignalEvents.stream([.interrupt, .terminate]) { feed.yield(.signal(s)) } })
        return (lines, inputs, feed, tasks)
    }

    /// Forwards every line's events into `feed` and starts the lines; returns the forwarding tasks.
    package func start(into feed: AsyncStream<Input>.Continuation) async -> [Task<Void, Never>] {
        var tasks: [Task<Void, Never>] = []
        for (index, entry) in entries.enumerated() {
            tasks.append(Task { for await event in entry.registration.events { feed.yield(.line(index, event)) } })
            tasks.append(Task { for await event in entry.callTraffic { feed.yield(.endpoint(index, event)) } })
        }
        for entry in entries { await entry.registration.start() }
        return tasks
    }

    /// Unregisters every line (at most `bound` for all of them) and closes their flows.
    package func stop(within bound: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            for entry in entries {
                group.addTask {
                    await entry.registration.stop(within: bound)
                    entry.callFeed.finish()
                }
            }
        }
    }

    /// The media address of a call on line `index`: `--media-address`, else the flow's local
    /// IPv4 address (``CallFigures/mediaHost(local:)``).
    package func mediaHost(_ index: Int, override: String?) async -> String {
        if let override { return override }
        return CallFigures.mediaHost(local: await entries[index].flow.info?.local?.uriHost)
    }

    /// The Call-ID an endpoint event belongs to (nil: the flow's own news, for every call).
    package static func callID(of event: EndpointEvent) -> String? {
        switch event {
        case .request(let incoming), .cancelled(let incoming): incoming.request.headers.callID
        case .ack(let ack): ack.headers.callID
        case .strayResponse(let response): response.headers.callID
        default: nil
        }
    }

    /// The reads of a whole lines file (docs/line.md, one line object a row; `name` allowed),
    /// each set up as one line is (`--insecure` as for `--line`).
    package static func read(_ path: String, insecure: Bool) throws(ToolError) -> [LineSetup] {
        var setups: [LineSetup] = []
        for entry in try MonitorLines.read(path).entries {
            do {
                setups.append(try LineSetup(line: entry.line, insecure: insecure))
            } catch {
                throw ToolError(error.code, "\(path): line \(entry.name): \(error.message)")
            }
        }
        return setups
    }
}
