import LineRunner
import SIPCore
import SIPDialog
import SIPTransport
import ToolSupport

/// One SIP user agent of live mode: a line's flow, endpoint and registration (LineRunner wiring,
/// the same as astra-call), with call traffic handed out on ``callTraffic``. The phone's app
/// process owns one while it runs; the caller owns one for the whole scenario.
public final class LiveSIPStack: Sendable {
    /// The line's setup (target, address of record, credentials).
    public let setup: LineSetup
    let flow: SIPFlow
    /// The endpoint (transactions), for building calls.
    public let endpoint: SIPEndpoint
    /// Registration (RFC 3261 §10) and flow recovery.
    public let registration: LineRegistration
    /// New requests, ACKs, CANCELs and stray responses for calls.
    public let callTraffic: AsyncStream<EndpointEvent>
    private let callFeed: AsyncStream<EndpointEvent>.Continuation
    /// The identifier source (Call-IDs, tags).
    public let ids: any IdentifierSource

    /// Builds (does not start) the stack for `line`; `push` adds RFC 8599 Contact parameters.
    public init(
        line: Line, userAgent: String, push: PushParameters? = nil, expires: Int = 300, sipTrace: Bool = false,
        ids: any IdentifierSource = SystemIdentifierSource(), tap: ResponseTap? = nil
    ) throws(LiveError) {
        let setup: LineSetup
        // The line is built by this process from its own environment (LiveEnvironment: its own
        // Kamailio, verified when it has the CA), not read from outside: its tls_verify stands.
        do { setup = try LineSetup(line: line, insecure: line.tlsVerify == false) } catch {
            throw LiveError(.usage, error.description)
        }
        self.setup = setup
        self.ids = ids
        let clock = ContinuousClock()
        let diagnostics = Diagnostics(tool: "astra-pushsim")
        flow = SIPFlow(
            target: setup.target,
            options: setup.connectionOptions(sipTrace: sipTrace, verbosity: 0, diagnostics: diagnostics),
            clock: clock, ids: ids)
        var endpointSettings = EndpointSettings()
        endpointSettings.userAgent = AstraVersion.product(userAgent)
        if let tap {
            endpoint = SIPEndpoint(
                channel: TappedChannel(flow: flow, tap: tap), clock: clock, ids: ids, settings: endpointSettings)
        } else {
            endpoint = SIPEndpoint(channel: flow, clock: clock, ids: ids, settings: endpointSettings)
        }
        var settings = setup.registrationSettings(expires: expires, keep: true, ids: ids, userAgent: userAgent)
        if let push { settings.push = push }
        let client = RegistrationClient(
            aor: setup.aor, registrar: setup.registrar, displayName: line.displayName,
            credentials: setup.credentials, settings: settings, ids: ids)
        (callTraffic, callFeed) = AsyncStream.makeStream(of: EndpointEvent.self)
        registration = LineRegistration(endpoint: endpoint, client: client, clock: clock, calls: callFeed)
    }

    /// Connects and registers; registration progress comes on ``LineRegistration/events``.
    public func start() async { await registration.start() }

    /// The local binding once the flow is up.
    public var binding: LocalBinding? { get async { await endpoint.binding } }

    /// The local address of the flow's socket (for the RTP address).
    public var localHost: String? { get async { await flow.info?.local?.uriHost } }

    /// Graceful end: unregister (bounded), stop the endpoint.
    public func shutdown(within bound: Duration = .seconds(1)) async {
        await registration.stop(within: bound)
        callFeed.finish()
    }

    /// The flow dies under the app (iOS suspends or kills it, or the network goes): the socket
    /// closes, no unregister is sent; the registrar keeps the binding until it expires.
    public func dropFlow() async {
        await endpoint.stop()
        callFeed.finish()
    }
}
