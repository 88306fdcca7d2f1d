import SIPCore
import Testing

@testable import Media

/// RFC 8445 §12.1: an agent may send data on any valid pair before a pair is selected. Found
/// against rtpengine (issue 9): as a full, controlling agent it nominates 100 ms after its
/// first valid pair, and our controlled DTLS client used to wait for that nomination.
@Suite struct DTLSOnValidPairTests {
    static let ours = UDPSocket.Address(host: "127.0.0.1", port: 30000)
    static let peerAddress = UDPSocket.Address(host: "127.0.0.1", port: 40000)

    /// Our transport answers an actpass offer (we are the DTLS client) from a controlling peer
    /// that nominates late; the ClientHello leaves as soon as our own check has succeeded, long
    /// before the nomination, towards the valid pair's remote address.
    @Test func controlledClientStartsDTLSBeforeNomination() throws {
        var w = WebRTCConfiguration()
        w.hostAddresses = ["127.0.0.1"]
        w.iceRole = .controlled
        let transport = try WebRTCTransport(configuration: w, local: Self.ours, ids: SeededIdentifierSource(seed: 7))
        var peer = ICEAgent(
            role: .controlling, ufrag: "peer", pwd: "peerpassword0123456789ab",
            ids: SeededIdentifierSource(seed: 8))
        _ = peer.addHostCandidates(["127.0.0.1"], port: Self.peerAddress.port)
        let peerCertificate = try DTLSCertificate()
        let local = transport.localParameters
        var toPeer: [[UInt8]] = []
        var toUs: [[UInt8]] = []
        func absorb(_ out: [WebRTCTransport.Output]) {
            for o in out { if case .send(let bytes, let to) = o, to == Self.peerAddress { toPeer.append(bytes) } }
        }
        // The peer's nominating checks (USE-CANDIDATE) are held back: a peer that nominates late.
        var nominationsHeld = 0
        func absorb(_ actions: [ICEAgent.Action]) {
            for a in actions {
                guard case .send(let bytes, let to) = a, to == Self.ours else { continue }
                if (try? STUNMessage(parsing: bytes))?.useCandidate == true {
                    nominationsHeld += 1
                } else {
                    toUs.append(bytes)
                }
            }
        }
        absorb(
            peer.setRemote(
                ufrag: local.ice.ufrag, pwd: local.ice.pwd,
                candidates: local.ice.candidates.compactMap(ICEAgentCandidate.init(sdp:)), now: .zero))
        absorb(
            try transport.setRemote(
                ice: ICEParameters(
                    ufrag: "peer", pwd: "peerpassword0123456789ab",
                    candidates: peer.localCandidates.map(\.sdp)),
                fingerprint: peerCertificate.fingerprint, setup: .actpass, lite: false, now: .zero))
        var now = Duration.zero
        var clientHelloAt: Duration?
        while now < .milliseconds(400), clientHelloAt == nil {
            now += .milliseconds(1)
            let inbound = toUs
            toUs = []
            for d in inbound { absorb(transport.receiveSTUN(d, from: Self.peerAddress, now: now)) }
            let outbound = toPeer
            toPeer = []
            for d in outbound {
                switch PacketDemultiplexer.classify(d) {
                case .stun: absorb(peer.receive(d, from: Self.ours, now: now))
                case .dtls: clientHelloAt = now
                default: break
                }
            }
            if let d = transport.nextDeadline, d <= now { absorb(transport.tick(now: now)) }
            if let d = peer.nextDeadline, d <= now { absorb(peer.tick(now: now)) }
        }
        let at = try #require(clientHelloAt, "no ClientHello before the peer nominated")
        #expect(at < .milliseconds(100))
        #expect(transport.ice.state == .connected)
        #expect(transport.ice.selectedPair == nil)
    }
}
