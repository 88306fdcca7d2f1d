import SIPCore
import Testing

@testable import Media

/// WEBRTC-NOTES: a relay's ClientHello can arrive before the 200 OK carrying its SDP. The
/// transport keeps it and answers it once the answer gives our role and its fingerprint.
///
/// The handshake is walked by hand with no timer firing, but OpenSSL also keeps its own
/// wall-clock timer (100 ms) and retransmits by itself when a read finds it run out, which a
/// loaded machine reaches between two steps: both ends get a long OpenSSL timer, so every flight
/// is the one the walk expects.
@Suite struct DTLSEarlyRecordTests {
    static let patient: DTLSTransport.Retransmission = {
        var r = DTLSTransport.Retransmission()
        r.openSSLTimer = .seconds(60)
        return r
    }()

    @Test func earlyClientHelloIsBufferedThenAnswered() throws {
        let relayAddress = UDPSocket.Address(host: "127.0.0.1", port: 40000)
        var w = WebRTCConfiguration()
        w.hostAddresses = ["127.0.0.1"]
        w.dtlsRetransmission = Self.patient
        let ours = try WebRTCTransport(
            configuration: w, local: UDPSocket.Address(host: "127.0.0.1", port: 30000),
            ids: SeededIdentifierSource(seed: 5))
        let relayCertificate = try DTLSCertificate()
        let relay = try DTLSTransport(
            role: .client, certificate: relayCertificate, expectedFingerprint: ours.localParameters.fingerprint,
            retransmission: Self.patient)
        let hello = relay.start().compactMap { if case .send(let d) = $0 { d } else { nil } }
        #expect(!hello.isEmpty)
        for d in hello {
            #expect(PacketDemultiplexer.classify(d) == .dtls)
            #expect(ours.receiveDTLS(d, from: relayAddress, now: .milliseconds(1)).isEmpty)  // kept, not answered yet
        }
        // The answer arrives: the relay is `active`, so we are the DTLS server.
        let relayICE = ICEParameters(
            ufrag: "relay", pwd: "relaypassword0123456789",
            candidates: [
                ICECandidate(foundation: "1", component: 1, priority: 2_130_706_431, address: "127.0.0.1", port: 40000)
            ])
        var out = try ours.setRemote(
            ice: relayICE, fingerprint: relayCertificate.fingerprint, setup: .active, lite: true, now: .milliseconds(10)
        )
        var secured: SRTPKeys?
        var relayKeys: SRTPKeys?
        for _ in 0..<10 {
            var toRelay: [[UInt8]] = []
            for o in out {
                switch o {
                case .send(let bytes, let to) where PacketDemultiplexer.classify(bytes) == .dtls:
                    #expect(to == relayAddress)
                    toRelay.append(bytes)
                case .secured(let keys, let to):
                    secured = keys
                    #expect(to == relayAddress)
                default: break
                }
            }
            out = []
            for d in toRelay {
                for a in relay.receive(d) {
                    switch a {
                    case .send(let back): out += ours.receiveDTLS(back, from: relayAddress, now: .milliseconds(20))
                    case .connected(let k): relayKeys = k
                    default: break
                    }
                }
            }
            if out.isEmpty { break }
        }
        let k = try #require(secured)
        let r = try #require(relayKeys)
        #expect(k.local == r.remote && k.remote == r.local)
    }
}
