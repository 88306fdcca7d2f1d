import Testing

@testable import Media

/// RFC 5769 §2 vectors (Vectors/stun_rfc5769.json), round trips and the RFC 8489 §6.2.1
/// retransmission schedule in virtual time.
@Suite struct STUNTests {
    static func vector(_ name: String) throws -> [UInt8] {
        hexBytes(try #require(try Vectors.json("stun_rfc5769.json")[name] as? String))
    }
    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    static let transactionID: [UInt8] = [0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae]

    @Test func rfc5769SampleRequest() throws {
        let bytes = try Self.vector("sample_request")
        let m = try STUNMessage(parsing: bytes)
        #expect(m.messageClass == .request && m.method == STUNMessage.binding)
        #expect(m.transactionID == Self.transactionID)
        #expect(m.software == "STUN test client")
        #expect(m.username == "evtj:h6vY")
        #expect(m.priority == 0x6e00_01ff)
        #expect(m.iceControlled == 0x932f_f9b1_5126_3b36)
        #expect(m.iceControlling == nil && !m.useCandidate)
        #expect(m.fingerprintMatches)
        #expect(m.verifyIntegrity(key: Self.password))
        #expect(!m.verifyIntegrity(key: Array("wrong".utf8)))
        #expect(m.unknownRequired.isEmpty)
    }

    @Test func rfc5769SampleIPv4Response() throws {
        let m = try STUNMessage(parsing: try Self.vector("sample_ipv4_response"))
        #expect(m.messageClass == .successResponse)
        #expect(m.software == "test vector")
        #expect(m.mappedAddress == STUNTransportAddress(host: "192.0.2.1", port: 32853))
        #expect(m.fingerprintMatches && m.verifyIntegrity(key: Self.password))
    }

    @Test func rfc5769SampleIPv6Response() throws {
        let m = try STUNMessage(parsing: try Self.vector("sample_ipv6_response"))
        #expect(m.mappedAddress == STUNTransportAddress(host: "2001:db8:1234:5678:11:2233:4455:6677", port: 32853))
        #expect(m.mappedAddress?.host == "2001:db8:1234:5678:11:2233:4455:6677")
        #expect(m.fingerprintMatches && m.verifyIntegrity(key: Self.password))
    }

    @Test func rfc5769LongTermAuthentication() throws {
        let m = try STUNMessage(parsing: try Self.vector("sample_request_long_term"))
        let user = "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}"
        #expect(m.username == user)
        #expect(!m.hasFingerprint)
        let key = STUNMessage.longTermKey(username: user, realm: "example.org", password: "TheMatrIX")
        #expect(m.verifyIntegrity(key: key))
        #expect(!m.verifyIntegrity(key: STUNMessage.longTermKey(username: user, realm: "example.org", password: "x")))
    }

    /// Encoding the §2.2/§2.3 content again gives the RFC's bytes exactly (the RFC pads with spaces).
    @Test(arguments: ["sample_ipv4_response", "sample_ipv6_response"])
    func encoderReproducesResponses(name: String) throws {
        let bytes = try Self.vector(name)
        let parsed = try STUNMessage(parsing: bytes)
        let mapped = try #require(parsed.mappedAddress)
        let rebuilt = STUNMessage(
            .successResponse, transactionID: Self.transactionID,
            attributes: [.software("test vector"), .xorMappedAddress(mapped, transactionID: Self.transactionID)])
        #expect(rebuilt.encoded(integrity: .sha1(key: Self.password), fingerprint: true, padding: 0x20) == bytes)
    }

    @Test func sha256IntegrityRoundTripAndTamper() throws {
        let id = Array(0..<12).map { UInt8($0) }
        let m = STUNMessage(
            .request, transactionID: id, attributes: [.username("a:b"), .priority(7), .useCandidateFlag])
        var bytes = m.encoded(integrity: .sha256(key: Array("pw".utf8)))
        let parsed = try STUNMessage(parsing: bytes)
        #expect(parsed.verifyIntegrity(key: Array("pw".utf8)) && parsed.fingerprintMatches && parsed.useCandidate)
        bytes[25] ^= 1
        let tampered = try STUNMessage(parsing: bytes)
        #expect(!tampered.verifyIntegrity(key: Array("pw".utf8)) && !tampered.fingerprintMatches)
    }

    @Test func errorCodeUnknownAttributesAndMalformedInput() throws {
        let id = [UInt8](repeating: 9, count: 12)
        let e = STUNMessage(
            .errorResponse, transactionID: id,
            attributes: [.errorCode(487, reason: "Role Conflict"), .unknownAttributes([0x7777])])
        let parsed = try STUNMessage(parsing: e.encoded())
        #expect(parsed.messageClass == .errorResponse)
        #expect(parsed.errorCode?.code == 487 && parsed.errorCode?.reason == "Role Conflict")
        let withUnknown = STUNMessage(
            .request, transactionID: id, attributes: [STUNAttribute(type: 0x7777, value: [1])])
        #expect(try STUNMessage(parsing: withUnknown.encoded()).unknownRequired == [0x7777])
        let optional = STUNMessage(.request, transactionID: id, attributes: [STUNAttribute(type: 0xC001, value: [1])])
        #expect(try STUNMessage(parsing: optional.encoded()).unknownRequired.isEmpty)
        #expect(throws: STUNError(.notSTUN)) { try STUNMessage(parsing: [0x80, 0, 0, 0]) }
        var bad = withUnknown.encoded(fingerprint: false)
        bad[23] = 40  // attribute length past the end
        #expect(throws: STUNError(.malformedAttribute)) { try STUNMessage(parsing: bad) }
    }

    /// RFC 8489 §6.2.1: RTO 500 ms, Rc 7, Rm 16 → sends at 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s;
    /// timeout at 39.5 s.
    @Test func retransmissionScheduleInVirtualTime() {
        var t = STUNClientTransaction(request: [1, 2, 3], transactionID: [UInt8](repeating: 0, count: 12))
        var now: Duration = .zero
        var sends: [Duration] = []
        var timedOutAt: Duration?
        var actions = t.start()
        while true {
            var timer: Duration?
            for a in actions {
                switch a {
                case .send: sends.append(now)
                case .startTimer(let d): timer = d
                case .timedOut: timedOutAt = now
                default: break
                }
            }
            guard let timer, timedOutAt == nil else { break }
            now += timer
            actions = t.timerFired()
        }
        #expect(sends == [0, 500, 1500, 3500, 7500, 15500, 31500].map { Duration.milliseconds($0) })
        #expect(timedOutAt == .milliseconds(39500))
        #expect(t.isFinished)
    }

    @Test func transactionMatchesOnlyItsResponse() throws {
        let id = [UInt8](repeating: 5, count: 12)
        var t = STUNClientTransaction(request: [], transactionID: id)
        _ = t.start()
        let other = STUNMessage(.successResponse, transactionID: [UInt8](repeating: 6, count: 12))
        #expect(t.receive(other).isEmpty)
        let mine = STUNMessage(.successResponse, transactionID: id)
        #expect(t.receive(mine) == [.cancelTimer, .deliver(mine)])
        #expect(t.timerFired().isEmpty && t.isFinished)
    }
}
