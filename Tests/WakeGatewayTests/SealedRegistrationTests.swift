import AstraJSON
import AstraTestSupport
import HTTPLite
import JWT
import SIPCore
import Testing

@testable import WakeGateway

/// Sealed push, the registration side (docs/wake-gateway.md "Sealed push", ADR 0152): the token
/// API takes the device key, the call grant and the call key; every grant check refuses with 403
/// and its reason in the answer, counted in `stats` and `/metrics`; `--sealed` decides what a
/// registration without them gets. In process: `handleHTTP` on a gateway with no traffic. No
/// grant, key or token goes into a test argument or an expectation's message.
@Suite struct SealedRegistrationTests {
    static let token = String(repeating: "5e", count: 32)

    /// A phone: its device key and its call key.
    struct Phone {
        let deviceKey = try! JWTKey.generate(.es256)
        let callKey = KeyMaterial.bytes(CallSeal.keyBytes)
        var deviceKeyText: String { Base64URL.encode(try! deviceKey.spkiDER()) }

        func grant(
            gateway: String = WakeGatewayConfiguration.defaultGrantAudience, endpoint: String = "1002", iat: Int64? = nil,
            lifetime: Int64 = 14 * 86_400
        ) -> String {
            let now = iat ?? WallClock.nowMs() / 1_000
            return try! CallGrantChecker.mint(
                deviceKey: deviceKey, gatewayID: gateway, endpoint: endpoint, issuedAt: now, expiresAt: now + lifetime)
        }
    }

    static func gateway(_ sealed: SealedMode = .optional, id: String? = nil) throws -> WakeGatewayServer<TestClock> {
        var configuration = WakeGatewayConfiguration()
        (configuration.sipPort, configuration.httpPort, configuration.apnsDevicePort) = (0, 0, 0)
        configuration.auth = TestAuth.auth
        configuration.sealed = sealed
        configuration.gatewayID = id
        return try WakeGatewayServer(configuration: configuration, clock: TestClock())
    }

    static func body(deviceKey: String?, grant: String?, callKey: String?) -> String {
        var json: JSONObject = [
            "asterisk_endpoint": "1002", "token": .string(token), "environment": "sandbox",
            "bundle_id": "com.example.astra", "platform": "ios",
        ]
        if let deviceKey { json["device_key"] = .string(deviceKey) }
        if let grant { json["grant"] = .string(grant) }
        if let callKey { json["call_key"] = .string(callKey) }
        return JSONValue.object(json).jsonText
    }

    static func register(_ gateway: WakeGatewayServer<TestClock>, _ body: String) async throws -> HTTPResponse {
        let headers = [HTTPHeader("Host", "h"), HTTPHeader("Content-Type", "application/json"), TestAuth.authorization()]
        return await gateway.handleHTTP(
            try HTTPRequest(method: "POST", target: WakeAPIRequest.tokenPath, headers: headers, body: Array(body.utf8)))
    }

    static func register(_ gateway: WakeGatewayServer<TestClock>, _ phone: Phone, grant: String, deviceKey: String? = nil)
        async throws -> HTTPResponse
    {
        try await register(
            gateway,
            body(deviceKey: deviceKey ?? phone.deviceKeyText, grant: grant, callKey: Base64URL.encode(phone.callKey)))
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func aValidGrantIsStoredWithTheRegistration() async throws {
        let gateway = try Self.gateway()
        let phone = Phone()
        let response = try await Self.register(gateway, phone, grant: phone.grant())
        #expect(response.status == 200)
        #expect(Self.text(response).contains(#""sealed":true"#))
        let sealing = try #require(await gateway.tokens.registration(for: "1002")?.sealing)
        #expect(sealing.callKey == phone.callKey)
        #expect(sealing.deviceKey == phone.deviceKeyText)
        #expect(!"\(sealing)".contains(sealing.grant) && !"\(sealing)".contains(sealing.callKeyText))
        // A renewal may leave the bound device key out.
        #expect(try await Self.register(gateway, phone, grant: phone.grant(), deviceKey: "").status == 400)
        let renewal = Self.body(deviceKey: nil, grant: phone.grant(lifetime: 7 * 86_400), callKey: Base64URL.encode(phone.callKey))
        #expect(try await Self.register(gateway, renewal).status == 200)
        #expect(await gateway.counters.keys.filter { $0.hasPrefix("grants_refused_") }.isEmpty)
    }

    /// Each reason of a refused grant: 403, the reason in the answer, nothing stored, one count in
    /// `stats` and in `/metrics`.
    @Test func everyGrantCheckRefusesWithItsReason() async throws {
        let phone = Phone()
        let other = Phone()
        let now = WallClock.nowMs() / 1_000
        let valid = phone.grant()
        var tampered = Array(valid.utf8)
        let signatureStart = valid.utf8.count - 40
        tampered[signatureStart] = tampered[signatureStart] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let hs256 = try JWTSigner(key: try JWTKey.hmac(secret: KeyMaterial.bytes(32)).identified(as: try phone.deviceKey.spkiThumbprint()))
            .sign(["aud": .string(WakeGatewayConfiguration.defaultGrantAudience), "iat": .int(now), "exp": .int(now + 600)])
        let cases: [(reason: String, grant: String, deviceKey: String?)] = [
            ("expired", phone.grant(iat: now - 86_400, lifetime: 86_400 - 61), nil),
            ("too_long", phone.grant(lifetime: 15 * 86_400 + 1), nil),
            ("other_gateway", phone.grant(gateway: "gw_b"), nil),
            // The phone's grant for its other line (same device key) does not let 1002 ring.
            ("other_endpoint", phone.grant(endpoint: "1003"), nil),
            ("other_device_key", other.grant(), nil),
            ("bad_signature", String(decoding: tampered, as: UTF8.self), nil),
            ("alg_not_es256", hs256, nil),
            ("not_yet_valid", phone.grant(iat: now + 3_600), nil),
            ("malformed", "not.a-grant", nil),
        ]
        let gateway = try Self.gateway()
        for (index, item) in cases.enumerated() {
            let response = try await Self.register(gateway, phone, grant: item.grant, deviceKey: item.deviceKey)
            #expect(response.status == 403, "case \(index)")
            let json = try JSONValue.parse(response.body)
            #expect(json["grant"]?.stringValue == item.reason, "case \(index)")
            #expect(!Self.text(response).contains(item.grant), "case \(index)")
            #expect(await gateway.counters["grants_refused_" + item.reason] == 1, "case \(index)")
        }
        #expect(await gateway.tokens.registration(for: "1002") == nil)
        let stats = await gateway.statsEvent()
        for item in cases {
            #expect(stats.fields["grants_refused_" + item.reason] == .int(1))
        }
        let metrics = await gateway.handleHTTP(try HTTPRequest(method: "GET", target: "/metrics", headers: [HTTPHeader("Host", "h")]))
        for item in cases {
            #expect(Self.text(metrics).contains(#"wakegw_grant_refusals_total{reason="\#(item.reason)"} 1"#))
        }
        // Bound: once the endpoint registered with one device key, another key is refused even
        // with a grant it signed itself.
        #expect(try await Self.register(gateway, phone, grant: valid).status == 200)
        let rebind = try await Self.register(gateway, other, grant: other.grant())
        #expect(rebind.status == 403)
        #expect(try JSONValue.parse(rebind.body)["grant"]?.stringValue == "other_device_key")
        #expect(await gateway.tokens.registration(for: "1002")?.sealing?.deviceKey == phone.deviceKeyText)
    }

    @Test func theGrantNamesThisGatewaysID() async throws {
        let gateway = try Self.gateway(id: "gw_a")
        let phone = Phone()
        #expect(try await Self.register(gateway, phone, grant: phone.grant()).status == 403)
        #expect(try await Self.register(gateway, phone, grant: phone.grant(gateway: "gw_a")).status == 200)
    }

    @Test func malformedSealingFieldsAre400() async throws {
        let gateway = try Self.gateway()
        let phone = Phone()
        let grant = phone.grant()
        for body in [
            Self.body(deviceKey: phone.deviceKeyText, grant: grant, callKey: nil),
            Self.body(deviceKey: phone.deviceKeyText, grant: nil, callKey: Base64URL.encode(phone.callKey)),
            Self.body(deviceKey: phone.deviceKeyText, grant: grant, callKey: Base64URL.encode(Array(phone.callKey.prefix(16)))),
            Self.body(deviceKey: "AAAA", grant: grant, callKey: Base64URL.encode(phone.callKey)),
            Self.body(deviceKey: nil, grant: grant, callKey: Base64URL.encode(phone.callKey)),
        ] {
            let response = try await Self.register(gateway, body)
            #expect(response.status == 400)
            #expect(!Self.text(response).contains(grant))
        }
        #expect(await gateway.tokens.registration(for: "1002") == nil)
    }

    @Test func sealedModeDecidesWhatARegistrationWithoutACallKeyGets() async throws {
        let phone = Phone()
        let clear = Self.body(deviceKey: nil, grant: nil, callKey: nil)
        // optional: clear pushes.
        let optional = try Self.gateway(.optional)
        #expect(try await Self.register(optional, clear).status == 200)
        #expect(await optional.tokens.registration(for: "1002")?.sealing == nil)
        // required: refused, never stored.
        let required = try Self.gateway(.required)
        let refused = try await Self.register(required, clear)
        #expect(refused.status == 403)
        #expect(try JSONValue.parse(refused.body)["grant"]?.stringValue == "missing")
        #expect(await required.counters["grants_refused_missing"] == 1)
        #expect(try await Self.register(required, phone, grant: phone.grant()).status == 200)
        // off: the fields are ignored, not even checked.
        let off = try Self.gateway(.off)
        #expect(try await Self.register(off, phone, grant: "not.a-grant").status == 200)
        #expect(await off.tokens.registration(for: "1002")?.sealing == nil)
    }
}
