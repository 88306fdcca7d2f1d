import Testing

@testable import Media

/// DTLS-SRTP (RFC 5763/5764) between two in-process endpoints over memory: handshake, key
/// export into SRTP contexts both ways, fingerprint check, roles, profiles, retransmission.
@Suite struct DTLSTests {
    struct Pair {
        let client: DTLSTransport
        let server: DTLSTransport
        var clientKeys: SRTPKeys?
        var serverKeys: SRTPKeys?
        var clientFailure: DTLSError?
        var serverFailure: DTLSError?
        var datagrams = 0
        var timers: [Duration] = []
    }

    /// Pumps datagrams between the two until both are done or nothing moves.
    static func run(_ pair: inout Pair, dropFirst: Int = 0, first: [DTLSTransport.Action]? = nil) {
        var toServer: [[UInt8]] = []
        var toClient: [[UInt8]] = []
        var dropped = 0
        func absorb(_ actions: [DTLSTransport.Action], fromClient: Bool) {
            for a in actions {
                switch a {
                case .send(let d):
                    pair.datagrams += 1
                    #expect(d.count <= 1200 && (20...63).contains(d[0]))  // RFC 7983 DTLS range
                    if dropped < dropFirst {
                        dropped += 1
                        continue
                    }
                    if fromClient { toServer.append(d) } else { toClient.append(d) }
                case .startTimer(let t): pair.timers.append(t)
                case .connected(let keys): if fromClient { pair.clientKeys = keys } else { pair.serverKeys = keys }
                case .failed(let e): if fromClient { pair.clientFailure = e } else { pair.serverFailure = e }
                }
            }
        }
        absorb(first ?? pair.client.start(), fromClient: true)
        absorb(pair.server.start(), fromClient: false)
        for _ in 0..<50 {
            if toServer.isEmpty && toClient.isEmpty { break }
            let s = toServer
            toServer = []
            for d in s { absorb(pair.server.receive(d), fromClient: false) }
            let c = toClient
            toClient = []
            for d in c { absorb(pair.client.receive(d), fromClient: true) }
        }
    }

    static func makePair(
        clientProfiles: [SRTPProfile] = [.aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32],
        serverProfiles: [SRTPProfile] = [.aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32],
        forge: Bool = false
    ) throws -> Pair {
        let cc = try DTLSCertificate()
        let sc = try DTLSCertificate()
        var serverPrint = sc.fingerprint
        if forge { serverPrint.bytes[31] ^= 0x01 }
        return Pair(
            client: try DTLSTransport(
                role: .client, certificate: cc, expectedFingerprint: serverPrint, profiles: clientProfiles),
            server: try DTLSTransport(
                role: .server, certificate: sc, expectedFingerprint: cc.fingerprint, profiles: serverProfiles))
    }

    /// Keys from both ends protect/unprotect each other's SRTP and SRTCP.
    static func exchangeSRTP(_ a: SRTPKeys, _ b: SRTPKeys) throws {
        let rtp: [UInt8] = [0x80, 8, 0, 1, 0, 0, 0, 160, 0xde, 0xad, 0xbe, 0xef] + [UInt8](repeating: 0xd5, count: 160)
        for (from, to) in [(a, b), (b, a)] {
            let out = try SRTPContext(key: from.local, direction: .outbound)
            let inn = try SRTPContext(key: to.remote, direction: .inbound)
            let protected = try out.protect(rtp)
            #expect(protected != rtp && protected.count == rtp.count + from.local.profile.rtpOverhead)
            #expect(try inn.unprotect(protected) == rtp)
            let rtcp: [UInt8] = [0x81, 201, 0, 7] + [UInt8](repeating: 1, count: 28)
            #expect(try inn.unprotectRTCP(try out.protectRTCP(rtcp)) == rtcp)
        }
    }

    @Test func handshakeExportsMatchingKeysAndSRTPFlowsBothWays() throws {
        var pair = try Self.makePair()
        Self.run(&pair)
        let ck = try #require(pair.clientKeys)
        let sk = try #require(pair.serverKeys)
        #expect(pair.clientFailure == nil && pair.serverFailure == nil)
        #expect(ck.local.profile == .aesCM128HmacSHA1_80)
        #expect(ck.local == sk.remote && ck.remote == sk.local && ck.local != ck.remote)
        #expect(!"\(ck)".contains(ck.local.keyAndSalt.map { String($0) }.joined()))  // redacted
        try Self.exchangeSRTP(ck, sk)
    }

    @Test(arguments: [
        ([SRTPProfile.aesCM128HmacSHA1_32], SRTPProfile.aesCM128HmacSHA1_32),
        ([.aeadAES128GCM, .aesCM128HmacSHA1_80], .aeadAES128GCM),
    ])
    func profileNegotiation(offered: [SRTPProfile], expected: SRTPProfile) throws {
        var pair = try Self.makePair(
            clientProfiles: offered, serverProfiles: [.aeadAES128GCM, .aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32])
        Self.run(&pair)
        let ck = try #require(pair.clientKeys)
        let sk = try #require(pair.serverKeys)
        #expect(ck.local.profile == expected)
        try Self.exchangeSRTP(ck, sk)
    }

    /// A forged `a=fingerprint` for the server: the client refuses with a clear reason.
    @Test func forgedFingerprintFailsWithTheReason() throws {
        var pair = try Self.makePair(forge: true)
        Self.run(&pair)
        let failure = try #require(pair.clientFailure)
        #expect(failure == DTLSError(.fingerprintMismatch))
        #expect(failure.description.contains("a=fingerprint says sha-256"))
        #expect(pair.clientKeys == nil)
    }

    @Test func noCommonProfileFails() throws {
        var pair = try Self.makePair(clientProfiles: [.aesCM128HmacSHA1_32], serverProfiles: [.aesCM128HmacSHA1_80])
        Self.run(&pair)
        #expect(pair.clientKeys == nil || pair.serverKeys == nil)
        #expect(pair.clientFailure != nil || pair.serverFailure != nil)
    }

    /// RFC 5763 §5 roles from `a=setup` (the peer's value decides ours).
    @Test func rolesFromSetup() {
        #expect(DTLSRole(remoteSetup: .active) == .server)
        #expect(DTLSRole(remoteSetup: .passive) == .client)
        #expect(DTLSRole(remoteSetup: .actpass) == .client)  // we answered active
        #expect(DTLSRole(remoteSetup: .holdconn) == nil)
        #expect(SetupRole.actpass.answer == .active && SetupRole.active.answer == .passive)
    }

    /// The first flight is lost: the client's timer (100 ms, RFC 6347 §4.2.4.1) fires and
    /// the ClientHello is sent again; the handshake then completes.
    @Test func lostFlightIsRetransmittedOnTimeout() async throws {
        var pair = try Self.makePair()
        Self.run(&pair, dropFirst: 1)
        #expect(pair.clientKeys == nil)
        let timer = try #require(pair.timers.first)
        #expect(timer <= .milliseconds(100))
        try await Task.sleep(for: timer + .milliseconds(20))
        let retransmit = pair.client.handleTimeout()
        #expect(retransmit.contains { if case .send = $0 { true } else { false } })
        Self.run(&pair, first: retransmit)
        #expect(pair.clientKeys != nil && pair.serverKeys != nil)
    }

    @Test func certificateIsECDSAP256WithSHA256Fingerprint() throws {
        let c = try DTLSCertificate()
        #expect(c.fingerprint.hashFunction == "sha-256" && c.fingerprint.bytes.count == 32)
        #expect(c.fingerprint != (try DTLSCertificate()).fingerprint)
        #expect(c.fingerprint.value.split(separator: ":").count == 32)
    }
}
