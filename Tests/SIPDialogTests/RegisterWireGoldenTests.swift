import SIPCore
import Testing

@testable import SIPDialog

/// The load engine's byte path (``RegistrationClient/rendersWire``, decision D13) must put on the
/// wire exactly what the normal path does: two clients with the same seed, one per path, are
/// stepped through the same exchange and every REGISTER is compared byte for byte.
@Suite struct RegisterWireGoldenTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var binding: LocalBinding
        var aor = "sip:1001@astra.test"
        var registrar = "sip:astra.test"
        var displayName: String? = "Alice"
        var password: String? = "secret1001"
        var challenge = "Digest realm=\"astra.test\", nonce=\"n0nce\", qop=\"auth\", algorithm=MD5"
        var proxyChallenge: String?
        var configure: @Sendable (inout RegistrationSettings) -> Void = { _ in }
        var description: String { name }
    }

    static let udp = LocalBinding(transport: .udp, host: "127.0.0.1", port: 40123)

    static let cases: [Case] = [
        Case(
            name: "udp, instance + reg-id", binding: udp,
            configure: {
                $0.instanceID = "urn:uuid:00000000-0000-4000-8000-000000000001"
                $0.regID = 1
            }),
        Case(
            name: "udp, instance only (load mode)", binding: udp, displayName: nil,
            configure: {
                $0.instanceID = "urn:uuid:00000000-0000-4000-8000-000000000001"
            }),
        Case(
            name: "udp, plain, opaque + MD5 not explicit", binding: udp,
            challenge: "Digest realm=\"astra.test\", nonce=\"abc\", opaque=\"o\\\"q\", qop=\"auth,auth-int\""),
        Case(
            name: "tcp, ipv6, push, SHA-256-sess", binding: LocalBinding(transport: .tcp, host: "::1", port: 5070),
            challenge: "Digest realm=\"astra.test\", nonce=\"xyz\", qop=\"auth\", algorithm=SHA-256-sess",
            configure: {
                $0.push = PushParameters(provider: "apns", prid: "ab12", param: "T.com.example.voip")
                $0.instanceID = "urn:uuid:00000000-0000-4000-8000-000000000002"
                $0.regID = 2
            }),
        Case(
            name: "wss without port, userhash, no qop",
            binding: LocalBinding(
                transport: .wss, host: "x1.invalid",
                port: nil),
            challenge: "Digest realm=\"astra.test\", nonce=\"u\", algorithm=SHA-256, userhash=true"),
        Case(
            name: "proxy and server challenge", binding: udp,
            proxyChallenge: "Digest realm=\"proxy.test\", nonce=\"p1\", qop=\"auth\""),
        Case(
            name: "user agent with CR LF, display name to quote", binding: udp, displayName: "Bob \"B\" Smith",
            configure: { $0.userAgent = "Astra\r\nX-Injected: 1" }),
        Case(name: "no password", binding: udp, password: nil),
        Case(
            name: "registrar with port and transport",
            binding: LocalBinding(
                transport: .tls, host: "10.0.0.2",
                port: 5061),
            registrar: "sip:astra.test:5061;transport=tls"),
    ]

    func pair(_ c: Case) throws -> (normal: RegistrationClient, wire: RegistrationClient) {
        func make() throws -> RegistrationClient {
            var settings = RegistrationSettings()
            c.configure(&settings)
            return RegistrationClient(
                aor: try SIPURI(parsing: c.aor), registrar: try SIPURI(parsing: c.registrar),
                displayName: c.displayName,
                credentials: c.password.map { DigestCredentials(username: "1001", password: $0) },
                settings: settings, ids: SeededIdentifierSource(seed: 42))
        }
        var wire = try make()
        wire.rendersWire = true
        return (try make(), wire)
    }

    /// Steps both clients with one input; returns the normal request and checks the wire one.
    func step(
        _ normal: inout RegistrationClient, _ wire: inout RegistrationClient,
        _ input: (inout RegistrationClient) -> [RegistrationClient.Action]
    ) throws -> SIPRequest? {
        let normalActions = input(&normal)
        let wireActions = input(&wire)
        let request = normalActions.compactMap { if case .send(let r) = $0 { r } else { nil } }.first
        #expect(!wireActions.contains { if case .send = $0 { true } else { false } })
        #expect(normalActions.count == wireActions.count + (request == nil ? 0 : 1))
        let bytes = wire.wireRequest
        wire.wireRequest = nil
        guard let request else {
            #expect(bytes == nil)
            return nil
        }
        // The cnonce comes from the system CSPRNG in both clients (never from the seed), so it
        // and the response it enters differ between them: compare everything else byte for byte.
        let expected = Self.maskingCnonce(String(decoding: request.serialized(), as: UTF8.self))
        let got = Self.maskingCnonce(String(decoding: try #require(bytes), as: UTF8.self))
        #expect(got == expected)
        #expect(wire.builder.lastBranch == normal.builder.lastBranch)
        return request
    }

    static func maskingCnonce(_ text: String) -> String {
        text.replacing(#/(cnonce|response)="[0-9a-f]+"/#) { "\($0.output.1)=\"…\"" }
    }

    @Test(arguments: cases)
    func wireBytesEqualTheNormalBuilder(_ c: Case) throws {
        var (normal, wire) = try pair(c)
        var request = try #require(try step(&normal, &wire) { $0.start(binding: c.binding) })
        // 401 (and 407) → answered REGISTER
        if c.password != nil {
            var extra: [(SIPHeaderName, String)] = [(.wwwAuthenticate, c.challenge)]
            var status = 401
            if let proxy = c.proxyChallenge {
                extra = [(.proxyAuthenticate, proxy)]
                status = 407
            }
            let challenge = SIPResponse(to: request, statusCode: status, toTag: "t1", headers: SIPHeaders(extra))
            request = try #require(try step(&normal, &wire) { $0.receive(challenge) })
            if c.proxyChallenge != nil {
                let second = SIPResponse(
                    to: request, statusCode: 401, toTag: "t1",
                    headers: SIPHeaders([(.wwwAuthenticate, c.challenge)]))
                request = try #require(try step(&normal, &wire) { $0.receive(second) })
            }
        }
        // 423 → retried with Min-Expires (a new Contact/Expires pair)
        let tooBrief = SIPResponse(
            to: request, statusCode: 423, toTag: "t1",
            headers: SIPHeaders([(.minExpires, "3600")]))
        request = try #require(try step(&normal, &wire) { $0.receive(tooBrief) })
        let ok = SIPResponse(
            to: request, statusCode: 200, toTag: "t1",
            headers: SIPHeaders([(.contact, request.headers[.contact]!)]))
        #expect(try step(&normal, &wire) { $0.receive(ok) } == nil)
        #expect(normal.state == wire.state)
        // Refresh, then unregister (expires=0, nc=2 and up on the same nonces)
        request = try #require(try step(&normal, &wire) { $0.timerFired(.refresh) })
        let refreshed = SIPResponse(
            to: request, statusCode: 200, toTag: "t1",
            headers: SIPHeaders([(.contact, request.headers[.contact]!)]))
        _ = try step(&normal, &wire) { $0.receive(refreshed) }
        _ = try #require(try step(&normal, &wire) { $0.stop() })
    }

    @Test func decimalRendering() {
        for value: UInt32 in [0, 7, 10, 99, 100, 65_535, 1_000_000, UInt32.max] {
            var out: [UInt8] = []
            RegisterRequestBuilder.appendDecimal(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(value))
        }
    }
}
