import Media
import SIPCore

/// The TURN client (RFC 8656) as a hostile TURN server can drive it: answers to its Allocate,
/// Refresh, CreatePermission and ChannelBind requests, signed with the long-term credentials
/// (``STUNPeer`` forges them), Data indications, ChannelData, raw datagrams, data to relay and
/// time. Seeds: the recorded coturn exchange replayed as steps, then permissions, a channel,
/// relayed data, a stale nonce and refreshes.
///
/// Each step is a control byte then a framed datagram: `c & 3` = 0 raw datagram, 1 an answer
/// forged from it (the key comes from the template's REALM), 2 time passes (`c >> 2` × 10 s),
/// 3 the application relays the datagram to peer `c >> 2 & 3`.
///
/// Invariants: every datagram the client sends is a STUN request or indication, or ChannelData
/// on a channel it bound; authenticated requests carry USERNAME, REALM and NONCE; the password
/// never appears in an event, an error or the configuration's description.
enum TURNTarget {
    static let password = "turn-fuzz-password-never-shown"
    static let server = UDPSocket.Address(host: "127.0.0.1", port: 3478)
    static let peers = ["192.0.2.10", "192.0.2.11", "2001:db8::1", "198.51.100.7"].map {
        UDPSocket.Address(host: $0, port: 40_000)
    }

    static let target = FuzzTarget(
        name: "turn",
        summary: "TURN client driven by a hostile server: allocation, permissions, channels, refresh (RFC 8656)",
        maxLength: 8192, dictionary: "stun",
        seeds: seeds, run: run)

    struct Conversation {
        var client: TURNClient
        var peer = STUNPeer()
        var now: Duration = .zero
        let configuration: TURNClient.Configuration

        init() {
            configuration = TURNClient.Configuration(
                server: TURNTarget.server, username: "u", password: TURNTarget.password)
            client = TURNClient(configuration: configuration, ids: SeededIdentifierSource(seed: 21))
            invariant(
                !configuration.description.contains(TURNTarget.password),
                "TURN configuration description shows the password")
            absorb(client.allocate(now: now))
        }

        mutating func apply(control: UInt8, datagram: [UInt8]) {
            switch control & 3 {
            case 0:
                absorb(client.receive(datagram, now: now))
            case 1:
                let realm = (try? STUNMessage(parsing: datagram))?.realm ?? "astra"
                let key = STUNMessage.longTermKey(username: "u", realm: realm, password: TURNTarget.password)
                absorb(client.receive(peer.forge(datagram, pick: control >> 2, key: key), now: now))
            case 2:
                now += .seconds(10 * Int(control >> 2))
                absorb(client.tick(now: now))
            default:
                absorb(client.send(datagram, to: TURNTarget.peers[Int(control >> 2) & 3], now: now))
            }
        }

        mutating func absorb(_ actions: [TURNClient.Action]) {
            for action in actions {
                switch action {
                case .send(let bytes):
                    TURNTarget.checkSent(bytes)
                    peer.observe(bytes)
                case .event(let event):
                    invariant(!"\(event)".contains(TURNTarget.password), "a TURN event shows the password")
                }
            }
        }
    }

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        var conversation = Conversation()
        var steps = 0
        while !input.isAtEnd && steps < 256 {
            let control = input.byte()
            conversation.apply(control: control, datagram: input.framed())
            steps += 1
        }
    }

    static func checkSent(_ bytes: [UInt8]) {
        if let first = bytes.first, first & 0xC0 == 0x40 {
            invariant(TURNChannelData.decode(bytes) != nil, "we sent malformed ChannelData")
            return
        }
        guard let m = try? STUNMessage(parsing: bytes) else {
            fatalError("invariant broken: the client sent a datagram that is not STUN")
        }
        invariant(m.messageClass == .request || m.messageClass == .indication, "the client sent a STUN response")
        if m.hasIntegrity {
            invariant(
                m.username == "u" && m.realm != nil && m.nonce != nil,
                "authenticated request without USERNAME/REALM/NONCE")
        }
    }

    static func seeds() -> [[UInt8]] {
        let answers = STUNVectors.coturnAnswers()
        guard answers.count == 2 else { SeedFiles.fail("turn_coturn.json: challenge and success expected") }
        let id = [UInt8](repeating: 0, count: 12)
        func success(_ method: UInt16, _ attributes: [STUNAttribute] = []) -> [UInt8] {
            STUNMessage(.successResponse, method: method, transactionID: id, attributes: attributes)
                .encoded(integrity: .sha1(key: [0]), fingerprint: true)
        }
        let stale = STUNMessage(
            .errorResponse, method: STUNMessage.refresh, transactionID: id,
            attributes: [.errorCode(438, reason: "Stale Nonce"), .realm("astra"), .nonce("fresh-nonce")]
        ).encoded(fingerprint: true)
        let dataIndication = STUNMessage(
            .indication, method: STUNMessage.dataIndication, transactionID: id,
            attributes: [
                .xorPeerAddress(STUNTransportAddress(host: peers[0].host, port: peers[0].port)!, transactionID: id),
                .data(Array("relayed".utf8)),
            ]
        ).encoded(fingerprint: false)
        var steps: [UInt8] = []
        func step(_ control: UInt8, _ datagram: [UInt8]) { steps += [control] + FuzzInput.framed([datagram]) }
        step(1, answers[0])  // 401 with REALM and NONCE
        step(1, answers[1])  // Allocate success
        step(3, Array("to peer 0".utf8))  // CreatePermission
        step(1, success(STUNMessage.createPermission))
        step(3, Array("again".utf8))  // Send indication, ChannelBind
        step(1, success(STUNMessage.channelBind))
        step(3, Array("on the channel".utf8))
        step(0, TURNChannelData.encode(channel: 0x4000, Array("from peer 0".utf8)))
        step(0, dataIndication)
        step(2 | 30 << 2, [])  // 300 s: permission and allocation refreshes
        step(1, stale)
        step(1, success(STUNMessage.refresh, [STUNAttribute(type: STUNAttribute.lifetime, value: [0, 0, 2, 88])]))
        step(3 | 2 << 2, Array("to peer 2".utf8))
        return [steps, [1] + FuzzInput.framed([answers[0]])] + answers.map { [0] + FuzzInput.framed([$0]) }
    }
}
