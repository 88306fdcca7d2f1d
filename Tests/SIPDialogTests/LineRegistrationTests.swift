import AstraTestSupport
import SIPCore
import SIPTransport
import Synchronization
import Testing
@testable import SIPDialog

/// A registrar good enough to test against: challenges with MD5 digest, checks the answer,
/// grants `grant` seconds, and counts what it saw.
final class TestRegistrar: Sendable {
    let registers = Mutex<[SIPRequest]>([])
    let password: String
    let grant: UInt32

    init(endpoint: SIPEndpoint, password: String = "secret1001", grant: UInt32 = 60) {
        self.password = password
        self.grant = grant
        Task {
            for await event in endpoint.events {
                guard case .request(let incoming) = event, incoming.request.method == .register else { continue }
                let response = self.answer(incoming.request)
                await endpoint.respond(to: incoming, with: response)
            }
        }
    }

    func answer(_ request: SIPRequest) -> SIPResponse {
        let count = registers.withLock { $0.append(request); return $0.count }
        if let value = request.headers[.authorization], let auth = try? DigestAuthorization(parsing: value),
           auth.verify(password: password, method: "REGISTER") {
            var ok = SIPResponse(to: request, statusCode: 200, toTag: "reg\(count)")
            let expires = (try? request.headers.expires()) ?? 0
            if expires > 0, let contact = request.headers[.contact] {
                let granted = min(expires, grant)
                ok.headers.add(.contact, contact.replacing("expires=\(expires)", with: "expires=\(granted)"))
            }
            return ok
        }
        var challenge = SIPResponse(to: request, statusCode: 401, toTag: "reg\(count)")
        challenge.headers.add(.wwwAuthenticate, "Digest realm=\"astra.test\", nonce=\"nonce\(count)\", qop=\"auth\", algorithm=MD5")
        return challenge
    }

    var count: Int { registers.withLock { $0.count } }
}

@Suite struct LineRegistrationTests {
    func line(_ net: EndpointPair, password: String = "secret1001", keep: Bool = true) -> LineRegistration {
        net.registrationLine(password: password, keep: keep)
    }

    func registered(_ events: Collector<LineEvent>) -> [RegistrationResult] {
        events.all.compactMap { if case .registration(.registered(let r)) = $0 { r } else { nil } }
    }

    @Test func registersRefreshesRecoversTheFlowAndUnregisters() async throws {
        let net = await EndpointPair.unstarted()
        let registrar = TestRegistrar(endpoint: net.b, grant: 60)
        await net.b.start()
        let reg = line(net)
        let events = Collector(reg.events)
        await reg.start()
        #expect(await net.run(until: .seconds(1)) { registered(events).count == 1 } == .zero)
        #expect(registrar.count == 2)  // challenged once, then accepted
        #expect(registered(events).first?.grantedExpires == 60)
        #expect(registered(events).first?.authAlgorithm == "MD5")

        // Refresh at min(90 % of 60 s, 60 s − 10 s margin) = 50 s.
        let refreshedAt = await net.run(until: .seconds(70), step: .seconds(1)) { registered(events).count == 2 }
        #expect(refreshedAt == .seconds(50))
        #expect(registered(events).last?.isRefresh == true)

        // The flow dies: the line says so, and re-registers as soon as a new flow is up.
        net.channelA.fail()
        #expect(await net.settle { events.all.contains { if case .registration(.flowLost) = $0 { true } else { false } } })
        await net.channelA.recover()
        #expect(await net.run(until: .seconds(60), step: .milliseconds(100)) { registered(events).count == 3 } != nil)

        // Stop: REGISTER with expiry 0 for our Contact, answered, then unregistered.
        let stopper = Task { await reg.stop() }
        _ = await net.run(until: .seconds(70), step: .milliseconds(100)) {
            events.all.contains { if case .registration(.unregistered) = $0 { true } else { false } }
        }
        await stopper.value
        let last = try #require(registrar.registers.withLock { $0.last })
        #expect(try last.headers.expires() == 0)
    }

    @Test func wrongPasswordEndsOneShotRegistrationWithTheServersStatus() async {
        let net = await EndpointPair.unstarted()
        _ = TestRegistrar(endpoint: net.b)
        await net.b.start()
        let reg = line(net, password: "wrong", keep: false)
        let events = Collector(reg.events)
        await reg.start()
        let failed = await net.run(until: .seconds(1)) {
            events.all.contains { if case .registration(.failed) = $0 { true } else { false } }
        }
        #expect(failed != nil)
        #expect(events.all.contains {
            if case .registration(.failed(.authenticationFailed(401, _))) = $0 { true } else { false }
        })
        #expect(await reg.state == .failed(.authenticationFailed(status: 401, reason: "Unauthorized")))
    }
}

extension EndpointPair {
    /// A registration for 1001@astra.test on the `a` end (a registration-only line unless
    /// `calls` is given), on the pair's virtual clock.
    func registrationLine(password: String = "secret1001", keep: Bool = true,
                          calls: AsyncStream<EndpointEvent>.Continuation? = nil) -> LineRegistration {
        var settings = RegistrationSettings()
        settings.retryOnFailure = keep
        settings.requestedExpires = 60
        let client = RegistrationClient(
            aor: try! SIPURI(parsing: "sip:1001@astra.test"), registrar: try! SIPURI(parsing: "sip:astra.test"),
            credentials: DigestCredentials(username: "1001", password: password), settings: settings,
            ids: SeededIdentifierSource(seed: 3))
        return LineRegistration(endpoint: a, client: client, clock: clock, calls: calls)
    }

    /// A pair whose `b` end is not started yet (so a test can subscribe to its events first) and
    /// accepts REGISTER (a UA answers it 405, RFC 3261 §8.2.1).
    static func unstarted() async -> EndpointPair {
        var registrar = EndpointSettings()
        registrar.allow += ", REGISTER"
        return await EndpointPair(startB: false, settingsB: registrar)
    }
}
