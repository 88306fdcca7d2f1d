import SIPCore
import Testing

@testable import Media

/// A constructed TURN server (RFC 8656) for the client's tests: long-term credentials with a
/// 401 round, stale nonces on demand, permissions and channels, error injection.
struct FakeTURNServer {
    var realm = "astra"
    var nonce = "nonce-1"
    var username = "u"
    var password = "p"
    var relayed = STUNTransportAddress(host: "192.0.2.15", port: 50000)!
    var mapped = STUNTransportAddress(host: "198.51.100.7", port: 40000)!
    var lifetime: UInt32 = 600
    /// Next request of this method gets this error instead (then cleared).
    var failNext: [UInt16: (Int, String)] = [:]
    /// Next authenticated request gets 438 with this new nonce.
    var staleNext: String?
    var permissions: Set<String> = []
    var channels: [UInt16: STUNTransportAddress] = [:]
    var requests: [STUNMessage] = []
    var sent: [(peer: STUNTransportAddress, data: [UInt8])] = []

    var key: [UInt8] { STUNMessage.longTermKey(username: username, realm: realm, password: password) }

    /// The response to one datagram from the client (nil for indications / ChannelData).
    mutating func handle(_ bytes: [UInt8]) -> [UInt8]? {
        if bytes.first.map({ $0 & 0xC0 == 0x40 }) == true {
            if let (c, data) = TURNChannelData.decode(bytes), let peer = channels[c] { sent.append((peer, data)) }
            return nil
        }
        guard let m = try? STUNMessage(parsing: bytes) else { return nil }
        if m.messageClass == .indication {
            if m.method == STUNMessage.sendIndication, let p = m.peerAddress, let d = m.data,
                permissions.contains(p.host)
            {
                sent.append((p, d))
            }
            return nil
        }
        requests.append(m)
        func error(_ code: Int, _ reason: String, _ extra: [STUNAttribute] = []) -> [UInt8] {
            STUNMessage(
                .errorResponse, method: m.method, transactionID: m.transactionID,
                attributes: [.errorCode(code, reason: reason)] + extra
            ).encoded()
        }
        guard m.hasIntegrity, m.username == username, m.realm == realm else {
            return error(401, "Unauthorized", [.realm(realm), .nonce(nonce)])
        }
        guard m.verifyIntegrity(key: key) else { return error(401, "Unauthorized", [.realm(realm), .nonce(nonce)]) }
        if let fresh = staleNext {
            staleNext = nil
            nonce = fresh
            return error(438, "Stale Nonce", [.realm(realm), .nonce(nonce)])
        }
        guard m.nonce == nonce else { return error(438, "Stale Nonce", [.realm(realm), .nonce(nonce)]) }
        if let (code, reason) = failNext.removeValue(forKey: m.method) { return error(code, reason) }
        var attributes: [STUNAttribute] = []
        switch m.method {
        case STUNMessage.allocate:
            attributes = [
                .xorRelayedAddress(relayed, transactionID: m.transactionID),
                .xorMappedAddress(mapped, transactionID: m.transactionID), .lifetime(lifetime),
            ]
        case STUNMessage.refresh:
            attributes = [.lifetime(m.lifetime == 0 ? 0 : lifetime)]
        case STUNMessage.createPermission:
            for p in m.peerAddresses { permissions.insert(p.host) }
        case STUNMessage.channelBind:
            if let c = m.channelNumber, let p = m.peerAddress {
                channels[c] = p
                permissions.insert(p.host)
            }
        default:
            return error(400, "Bad Request")
        }
        return STUNMessage(.successResponse, method: m.method, transactionID: m.transactionID, attributes: attributes)
            .encoded(integrity: .sha1(key: key))
    }

    /// A Data indication from `peer`.
    func dataIndication(_ data: [UInt8], from peer: STUNTransportAddress) -> [UInt8] {
        let id = [UInt8](repeating: 7, count: 12)
        return STUNMessage(
            .indication, method: STUNMessage.dataIndication, transactionID: id,
            attributes: [.xorPeerAddress(peer, transactionID: id), .data(data)]
        ).encoded(fingerprint: false)
    }
}

/// Drives a ``TURNClient`` against a ``FakeTURNServer`` with zero latency, in virtual time.
struct TURNRig {
    var client: TURNClient
    var server = FakeTURNServer()
    var now: Duration = .zero
    var events: [TURNClient.Event] = []
    /// Datagrams the client sent (to the server), in order.
    var wire: [[UInt8]] = []
    var dropToServer = false

    init(password: String = "p", configure: (inout TURNClient.Configuration) -> Void = { _ in }) {
        var c = TURNClient.Configuration(
            server: UDPSocket.Address(host: "203.0.113.1", port: 3478), username: "u", password: password)
        configure(&c)
        client = TURNClient(configuration: c, ids: SeededIdentifierSource(seed: 5))
    }

    mutating func absorb(_ actions: [TURNClient.Action]) {
        var queue = actions
        while !queue.isEmpty {
            switch queue.removeFirst() {
            case .send(let bytes):
                wire.append(bytes)
                if dropToServer { continue }
                if let response = server.handle(bytes) { queue += client.receive(response, now: now) }
            case .event(let e): events.append(e)
            }
        }
    }

    mutating func advance(to t: Duration) {
        while let d = client.nextDeadline, d <= t {
            now = max(now, d)
            absorb(client.tick(now: now))
        }
        now = t
    }

    mutating func allocate() { absorb(client.allocate(now: now)) }
}

@Suite("TURN client (RFC 8656) in virtual time")
struct TURNClientTests {
    @Test func allocateWithTheChallengeRound() throws {
        var rig = TURNRig()
        rig.allocate()
        #expect(rig.server.requests.count == 2)
        let first = rig.server.requests[0]
        #expect(first.method == STUNMessage.allocate && !first.hasIntegrity && first.username == nil)
        #expect(first.attribute(STUNAttribute.requestedTransport)?.value == [17, 0, 0, 0])
        let second = rig.server.requests[1]
        #expect(second.username == "u" && second.realm == "astra" && second.nonce == "nonce-1")
        #expect(second.verifyIntegrity(key: STUNCrypto.longTermKey(username: "u", realm: "astra", password: "p")))
        #expect(second.transactionID != first.transactionID)
        #expect(rig.client.state == .allocated)
        let relayed = UDPSocket.Address(host: "192.0.2.15", port: 50000)
        #expect(
            rig.events == [
                .allocated(
                    relayed: relayed, mapped: UDPSocket.Address(host: "198.51.100.7", port: 40000),
                    lifetime: .seconds(600))
            ])
        #expect(rig.client.relayedAddress == relayed)
        #expect(rig.client.nextDeadline == .seconds(540))  // refresh 60 s before expiry
    }

    @Test func refreshBeforeExpiryAndLifetimeZeroOnClose() {
        var rig = TURNRig()
        rig.allocate()
        rig.advance(to: .seconds(539))
        #expect(rig.server.requests.count == 2)
        rig.advance(to: .seconds(540))
        let refresh = rig.server.requests.last!
        #expect(refresh.method == STUNMessage.refresh && refresh.lifetime == 600 && refresh.hasIntegrity)
        #expect(rig.events.last == .refreshed(lifetime: .seconds(600)))
        #expect(rig.client.nextDeadline == .seconds(1080))
        rig.absorb(rig.client.close(now: rig.now))
        #expect(rig.server.requests.last?.method == STUNMessage.refresh && rig.server.requests.last?.lifetime == 0)
        #expect(rig.client.state == .closed && rig.client.nextDeadline == nil)
    }

    @Test func shortLifetimeRefreshesAtHalf() {
        var rig = TURNRig()
        rig.server.lifetime = 60
        rig.allocate()
        #expect(rig.client.nextDeadline == .seconds(30))
    }

    @Test func staleNonceIsRetriedWithTheNewNonce() {
        var rig = TURNRig()
        rig.allocate()
        rig.server.staleNext = "nonce-2"
        rig.advance(to: .seconds(540))
        let last = rig.server.requests.suffix(2)
        #expect(last.map(\.method) == [STUNMessage.refresh, STUNMessage.refresh])
        #expect(last.last?.nonce == "nonce-2")
        #expect(rig.client.state == .allocated)
        #expect(rig.events.last == .refreshed(lifetime: .seconds(600)))
    }

    @Test func wrongPasswordFailsWithoutPrintingIt() throws {
        var rig = TURNRig(password: "s3cret-wrong")
        rig.allocate()
        #expect(rig.client.state == .failed)
        guard case .failed(let error) = rig.events.last else { Issue.record("no failure"); return }
        #expect(error.code == .unauthorized && error.status == 401)
        #expect(error.description.contains("wrong username or password"))
        #expect(!error.description.contains("s3cret"))
        #expect(!"\(rig.client.configuration)".contains("s3cret"))
        #expect(rig.server.requests.count == 2)  // no loop
    }

    @Test(arguments: [
        (486, TURNError.Code.quotaReached), (442, .unsupportedTransport), (508, .insufficientCapacity),
        (437, .allocationMismatch), (441, .unauthorized), (500, .serverError),
    ])
    func allocateErrors(status: Int, code: TURNError.Code) {
        var rig = TURNRig()
        rig.server.failNext[STUNMessage.allocate] = (status, "Nope")
        rig.allocate()
        #expect(rig.client.state == .failed)
        guard case .failed(let error) = rig.events.last else { Issue.record("no failure"); return }
        #expect(error.code == code && error.status == status)
        #expect(error.description.contains("Allocate refused by 203.0.113.1:3478: \(status) Nope"))
    }

    @Test func allocateTimesOut() {
        var rig = TURNRig()
        rig.dropToServer = true
        rig.allocate()
        rig.advance(to: .seconds(7))
        #expect(rig.client.state == .allocating)
        #expect(rig.wire.count == 7)  // Rc = 7
        rig.advance(to: .milliseconds(7900))  // 100 ms × (1+2+…+32) + 16 × 100 ms
        #expect(rig.client.state == .failed)
        guard case .failed(let error) = rig.events.last else { Issue.record("no failure"); return }
        #expect(error.code == .timeout)
    }

    @Test func refreshMismatchLosesTheAllocation() {
        var rig = TURNRig()
        rig.allocate()
        rig.server.failNext[STUNMessage.refresh] = (437, "Allocation Mismatch")
        rig.advance(to: .seconds(540))
        #expect(rig.client.state == .failed)
        guard case .failed(let error) = rig.events.last else { Issue.record("no failure"); return }
        #expect(error.code == .allocationMismatch)
        #expect(rig.client.nextDeadline == nil)
    }

    @Test func permissionThenSendIndicationThenChannelData() {
        var rig = TURNRig()
        rig.allocate()
        let peer = UDPSocket.Address(host: "192.0.2.99", port: 7000)
        rig.absorb(rig.client.send([1, 2, 3], to: peer, now: rig.now))
        // CreatePermission first (§9), the datagram queued until it succeeds, then a Send
        // indication and a ChannelBind (§12).
        #expect(
            rig.server.requests.suffix(2).map(\.method) == [STUNMessage.createPermission, STUNMessage.channelBind])
        #expect(rig.server.requests.suffix(2).first?.peerAddresses.map(\.host) == ["192.0.2.99"])
        #expect(rig.server.sent.map(\.data) == [[1, 2, 3]])
        #expect(rig.events.contains(.permissionCreated(["192.0.2.99"])))
        #expect(rig.events.contains(.channelBound(peer, channel: 0x4000)))
        rig.absorb(rig.client.send([4, 5], to: peer, now: rig.now))
        #expect(rig.wire.last == [0x40, 0x00, 0, 2, 4, 5])
        #expect(rig.server.sent.last?.data == [4, 5])
        #expect(rig.client.hasPermission(for: peer))
    }

    @Test func permissionsAndChannelsAreRefreshedBeforeTheyExpire() {
        var rig = TURNRig()
        rig.allocate()
        let peer = UDPSocket.Address(host: "192.0.2.99", port: 7000)
        rig.absorb(rig.client.createPermissions(for: ["192.0.2.99", "192.0.2.98"], now: rig.now))
        rig.absorb(rig.client.send([1], to: peer, now: rig.now))
        let count = rig.server.requests.count
        rig.advance(to: .milliseconds(239_999))
        #expect(rig.server.requests.count == count)
        rig.advance(to: .seconds(240))
        // Both hosts in one CreatePermission, before the 300 s lifetime (§9).
        let refresh = rig.server.requests.last!
        #expect(refresh.method == STUNMessage.createPermission)
        #expect(refresh.peerAddresses.map(\.host).sorted() == ["192.0.2.98", "192.0.2.99"])
        rig.advance(to: .seconds(480))
        #expect(rig.server.requests.last?.method == STUNMessage.createPermission)
        rig.advance(to: .seconds(540))
        let methods = rig.server.requests.suffix(2).map(\.method).sorted()
        #expect(methods == [STUNMessage.refresh, STUNMessage.channelBind].sorted())
        #expect(rig.client.state == .allocated)
    }

    @Test func permissionRequestedBeforeTheAllocationGoesOutAfterIt() {
        var rig = TURNRig()
        rig.dropToServer = true
        rig.absorb(rig.client.allocate(now: rig.now))
        rig.absorb(rig.client.createPermissions(for: ["192.0.2.50"], now: rig.now))
        #expect(rig.wire.count == 1)
        rig.dropToServer = false
        rig.advance(to: .milliseconds(100))  // the Allocate retransmission gets through
        #expect(rig.server.requests.map(\.method).last == STUNMessage.createPermission)
        #expect(rig.events.contains(.permissionCreated(["192.0.2.50"])))
    }

    @Test func forbiddenPeerDropsItsQueue() {
        var rig = TURNRig()
        rig.allocate()
        rig.server.failNext[STUNMessage.createPermission] = (403, "Forbidden")
        let peer = UDPSocket.Address(host: "10.0.0.1", port: 9)
        rig.absorb(rig.client.send([9, 9], to: peer, now: rig.now))
        #expect(rig.server.sent.isEmpty)
        guard case .permissionFailed(let hosts, let error) = rig.events.last else {
            Issue.record("no permission failure")
            return
        }
        #expect(hosts == ["10.0.0.1"] && error.code == .forbidden)
        let before = rig.wire.count
        rig.absorb(rig.client.send([9], to: peer, now: rig.now))
        #expect(rig.wire.count == before)  // not asked again
        #expect(rig.client.state == .allocated)
    }

    @Test func channelBindFailureFallsBackToSendIndications() {
        var rig = TURNRig()
        rig.allocate()
        rig.server.failNext[STUNMessage.channelBind] = (400, "Bad Request")
        let peer = UDPSocket.Address(host: "192.0.2.99", port: 7000)
        rig.absorb(rig.client.send([1], to: peer, now: rig.now))
        rig.absorb(rig.client.send([2], to: peer, now: rig.now))
        #expect(rig.server.sent.map(\.data) == [[1], [2]])
        #expect(rig.server.requests.filter { $0.method == STUNMessage.channelBind }.count == 1)
        let last = try? STUNMessage(parsing: rig.wire.last!)
        #expect(last?.method == STUNMessage.sendIndication)
    }

    @Test func dataIndicationsAndChannelDataAreUnwrapped() {
        var rig = TURNRig()
        rig.allocate()
        let peer = UDPSocket.Address(host: "192.0.2.99", port: 7000)
        let fromPeer = rig.server.dataIndication([0x80, 1, 2], from: STUNTransportAddress(peer)!)
        #expect(rig.client.receive(fromPeer, now: rig.now) == [.event(.data([0x80, 1, 2], from: peer))])
        // ChannelData only for a bound channel.
        #expect(rig.client.receive([0x40, 0x00, 0, 1, 0x16, 0, 0, 0], now: rig.now).isEmpty)
        rig.absorb(rig.client.send([1], to: peer, now: rig.now))
        #expect(
            rig.client.receive([0x40, 0x00, 0, 1, 0x16, 0, 0, 0], now: rig.now) == [.event(.data([0x16], from: peer))])
    }

    @Test func sendsNothingBeforeOrAfterTheAllocation() {
        var rig = TURNRig()
        let peer = UDPSocket.Address(host: "192.0.2.99", port: 7000)
        #expect(rig.client.send([1], to: peer, now: .zero).isEmpty)
        rig.allocate()
        rig.absorb(rig.client.close(now: rig.now))
        #expect(rig.client.send([1], to: peer, now: rig.now).isEmpty)
    }
}

@Suite("TURN attributes (RFC 8656 §18)")
struct TURNAttributeTests {
    @Test func xorPeerAndRelayedAddressesRoundTrip() throws {
        let id: [UInt8] = Array(0..<12)
        for host in ["192.0.2.1", "2001:db8::1234"] {
            let address = STUNTransportAddress(host: host, port: 32853)!
            let m = STUNMessage(
                .successResponse, method: STUNMessage.allocate, transactionID: id,
                attributes: [
                    .xorRelayedAddress(address, transactionID: id), .xorPeerAddress(address, transactionID: id),
                    .lifetime(777), .channelNumber(0x4001), .data([1, 2, 3]), .realm("r"), .nonce("n"),
                    .requestedTransport(),
                ])
            let parsed = try STUNMessage(parsing: m.encoded())
            #expect(parsed.relayedAddress == address && parsed.peerAddress == address)
            #expect(parsed.lifetime == 777 && parsed.channelNumber == 0x4001 && parsed.data == [1, 2, 3])
            #expect(parsed.realm == "r" && parsed.nonce == "n" && parsed.unknownRequired.isEmpty)
            #expect(parsed.method == STUNMessage.allocate && parsed.messageClass == .successResponse)
        }
    }

    /// RFC 8489 §14.2's XOR encoding (RFC 5769 §2.2's XOR-MAPPED-ADDRESS) under the TURN types:
    /// 192.0.2.1:32853 is `00 01 a1 47 e1 12 a6 43`.
    @Test func xorEncodingMatchesTheRFC5769Vector() {
        let id: [UInt8] = [0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae]
        let a = STUNTransportAddress(host: "192.0.2.1", port: 32853)!
        #expect(STUNAttribute.xorPeerAddress(a, transactionID: id).value == [0, 1, 0xa1, 0x47, 0xe1, 0x12, 0xa6, 0x43])
        #expect(STUNAttribute.xorPeerAddress(a, transactionID: id).type == 0x0012)
        #expect(STUNAttribute.xorRelayedAddress(a, transactionID: id).type == 0x0016)
    }

    @Test func channelData() {
        #expect(TURNChannelData.encode(channel: 0x4ABC, [9, 8, 7]) == [0x4A, 0xBC, 0, 3, 9, 8, 7])
        #expect(TURNChannelData.decode([0x4A, 0xBC, 0, 3, 9, 8, 7, 0])! == (0x4ABC, [9, 8, 7]))  // padded
        #expect(TURNChannelData.decode([0x4A, 0xBC, 0, 5, 9]) == nil)  // short
        #expect(TURNChannelData.decode([0x50, 0, 0, 0]) == nil)  // not a channel
        #expect(PacketDemultiplexer.classify([0x40, 0, 0, 0]) == .turnChannel)
    }
}

/// An Allocate exchange recorded from Debian's coturn 4.6.1 (Vectors/turn_coturn.json: the
/// 401 challenge, an authenticated Allocate built by an independent Python encoder, and the
/// server's success response). No TURN vectors are published; this ties the codec to a real
/// server's bytes and to another implementation's HMAC and CRC.
@Suite("TURN vectors recorded from coturn")
struct TURNRecordedVectorTests {
    static func vector(_ name: String) throws -> [UInt8] {
        hexBytes(try #require(try Vectors.json("turn_coturn.json")[name] as? String))
    }

    static let key = STUNMessage.longTermKey(username: "u", realm: "astra", password: "p")

    @Test func challenge() throws {
        let m = try STUNMessage(parsing: try Self.vector("challenge"))
        #expect(m.method == STUNMessage.allocate && m.messageClass == .errorResponse)
        #expect(m.errorCode?.code == 401)
        #expect(m.realm == "astra" && (m.nonce?.isEmpty == false))
        #expect(!m.hasFingerprint || m.fingerprintMatches)
    }

    @Test func authenticatedRequestIsReproducedByteForByte() throws {
        let recorded = try Self.vector("authenticatedRequest")
        let parsed = try STUNMessage(parsing: recorded)
        #expect(parsed.verifyIntegrity(key: Self.key) && parsed.fingerprintMatches)
        let nonce = try #require(try STUNMessage(parsing: try Self.vector("challenge")).nonce)
        let ours = STUNMessage(
            .request, method: STUNMessage.allocate, transactionID: parsed.transactionID,
            attributes: [.requestedTransport(), .username("u"), .realm("astra"), .nonce(nonce)]
        ).encoded(integrity: .sha1(key: Self.key), fingerprint: true)
        #expect(ours == recorded)
    }

    @Test func successResponse() throws {
        let m = try STUNMessage(parsing: try Self.vector("success"))
        #expect(m.method == STUNMessage.allocate && m.messageClass == .successResponse)
        #expect(m.verifyIntegrity(key: Self.key))
        #expect(!m.verifyIntegrity(key: STUNMessage.longTermKey(username: "u", realm: "astra", password: "q")))
        #expect(!m.hasFingerprint || m.fingerprintMatches)
        let relayed = try #require(m.relayedAddress)
        #expect(relayed.host == "127.0.0.1" && (40100...40110).contains(relayed.port))
        #expect(m.mappedAddress?.host == "127.0.0.1")
        #expect(m.lifetime == 600)
        #expect(m.unknownRequired.isEmpty)
    }
}
