import CallSession
import Capture
import LineRunner
import SIPCore
import SIPDialog
import SIPTransport
import ToolSupport

/// The registered lines of a load run (`astra-call load` places calls from them, `answer --load`
/// takes calls on them): per line the same flow, endpoint and ``LineRegistration`` one call uses
/// (``CallRun``), each line's traffic tagged with its index on one stream, so one loop drives
/// every line and every call.
struct CallLines: Sendable {
    /// What the loop of a load run reads: a line's registration or call traffic, a call's
    /// events (by Call-ID), a due step, a signal, the once-a-second tick.
    enum Input: Sendable {
        case line(Int, LineEvent)
        case endpoint(Int, EndpointEvent)
        case call(String, CallEvent)
        case due(String, CallRun.Step)
        case signal(ToolSignal)
        case tick
    }

    struct Entry: Sendable {
        let setup: LineSetup
        let flow: SIPFlow
        let endpoint: SIPEndpoint
        let registration: LineRegistration
        let callFeed: AsyncStream<EndpointEvent>.Continuation
        let callTraffic: AsyncStream<EndpointEvent>
    }

    let entries: [Entry]

    /// One flow, endpoint and registration per line (not started).
    init(
        _ setups: [LineSetup], capture: CaptureHub?, verbosity: Int, diagnostics: Diagnostics,
        clock: ContinuousClock, ids: any IdentifierSource
    ) {
        entries = setups.map { setup in
            let flow = SIPFlow(
                target: setup.target,
                options: setup.connectionOptions(
                    trace: capture?.sipTrace, verbosity: verbosity, diagnostics: diagnostics),
                clock: clock, ids: ids)
            var endpointSettings = EndpointSettings()
            endpointSettings.userAgent = AstraVersion.product("astra-call")
            let endpoint = SIPEndpoint(channel: flow, clock: clock, ids: ids, settings: endpointSettings)
            let client = RegistrationClient(
                aor: setup.aor, registrar: setup.registrar, displayName: setup.line.displayName,
                credentials: setup.credentials,
                settings: setup.registrationSettings(expires: nil, keep: true, ids: ids, userAgent: "astra-call"),
                ids: ids)
            let (traffic, feed) = AsyncStream.makeStream(of: EndpointEvent.self)
            let registration = LineRegistration(endpoint: endpoint, client: client, clock: clock, calls: feed)
            return Entry(
                setup: setup, flow: flow, endpoint: endpoint, registration: registration, callFeed: feed,
                callTraffic: traffic)
        }
    }

    /// Forwards every line's events into `feed` and starts the lines; returns the forwarding tasks.
    func start(into feed: AsyncStream<Input>.Continuation) async -> [Task<Void, Never>] {
        var tasks: [Task<Void, Never>] = []
        for (index, entry) in entries.enumerated() {
            tasks.append(Task { for await event in entry.registration.events { feed.yield(.line(index, event)) } })
            tasks.append(Task { for await event in entry.callTraffic { feed.yield(.endpoint(index, event)) } })
        }
        for entry in entries { await entry.registration.start() }
        return tasks
    }

    /// Unregisters every line (at most `bound` for all of them) and closes their flows.
    func stop(within bound: Duration) async {
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
    /// IPv4 address (``CallRun/mediaHost(local:)``).
    func mediaHost(_ index: Int, override: String?) async -> String {
        if let override { return override }
        return CallRun.mediaHost(local: await entries[index].flow.info?.local?.uriHost)
    }

    /// The Call-ID an endpoint event belongs to (nil: the flow's own news, for every call).
    static func callID(of event: EndpointEvent) -> String? {
        switch event {
        case .request(let incoming), .cancelled(let incoming): incoming.request.headers.callID
        case .ack(let ack): ack.headers.callID
        case .strayResponse(let response): response.headers.callID
        default: nil
        }
    }

    /// The reads of a whole lines file (docs/line.md, one line object a row; `name` allowed),
    /// each set up as one line is (`--insecure` as for `--line`).
    static func read(_ path: String, insecure: Bool) throws(ToolError) -> [LineSetup] {
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
