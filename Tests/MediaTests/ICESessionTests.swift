import SIPCore
import Synchronization
import Testing

@testable import Media

/// The ICE side of a WebRTC ``MediaSession`` over real sockets: server-reflexive gathering
/// through a STUN server, and an ICE restart mid-call (re-INVITE) with media continuing.
@Suite(.serialized) struct ICESessionTests {
    /// A one-socket STUN server on 127.0.0.1 that reports a fixed "public" mapping (as a NAT
    /// would) for every Binding request.
    final class FakeSTUNServer: Sendable {
        let socket: UDPSocket
        let mapped = STUNTransportAddress(host: "203.0.113.9", port: 61001)!
        let requests = Mutex(0)
        let stopped = Mutex(false)

        init() throws {
            socket = try UDPSocket(bindHost: "127.0.0.1")
            Task.detached { [self] in
                var buffer = [UInt8](repeating: 0, count: 1500)
                while !self.stopped.withLock({ $0 }) {
                    guard let (n, from) = buffer.withUnsafeMutableBytes({ self.socket.receive(into: $0) }), let from
                    else {
                        try? await Task.sleep(for: .milliseconds(2))  // poll interval of a bounded wait
                        continue
                    }
                    guard let request = try? STUNMessage(parsing: Array(buffer[0..<n])),
                        request.messageClass == .request
                    else { continue }
                    self.requests.withLock { $0 += 1 }
                    let response = STUNMessage(
                        .successResponse, transactionID: request.transactionID,
                        attributes: [.xorMappedAddress(self.mapped, transactionID: request.transactionID)])
                    self.socket.send(response.encoded(), to: from)
                }
            }
        }
        func stop() { stopped.withLock { $0 = true } }
    }

    @Test func serverReflexiveCandidateFromTheConfiguredSTUNServer() async throws {
        let server = try FakeSTUNServer()
        var config = DTLSSessionTests.configuration(role: .controlling)
        config.webRTC?.stunServer = server.socket.localAddress
        config.webRTC?.ice.gatheringTimeout = .seconds(3)  // about the candidate, not the bound (a busy CPU)
        let session = try MediaSession(
            configuration: config, clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 31))
        await session.start(remote: nil)
        let local = try #require(await session.webRTCLocalParameters())
        await session.stop()
        server.stop()
        #expect(server.requests.withLock { $0 } >= 1)
        let srflx = try #require(local.ice.candidates.first { $0.type == "srflx" })
        #expect(srflx.address == "203.0.113.9" && srflx.port == 61001)
        #expect(srflx.relatedAddress == "127.0.0.1" && srflx.relatedPort == session.localAddress.port)
        #expect(local.ice.candidates.contains { $0.type == "host" && $0.address == "127.0.0.1" })
        let host = try #require(local.ice.candidates.first { $0.type == "host" })
        #expect(host.priority > srflx.priority)  // §5.1.2.2 type preferences
    }

    /// RFC 8445 §9: both sides restart (new ufrag/pwd in a new offer/answer); checks run again,
    /// DTLS is not redone (same certificates) and the tone keeps flowing.
    @Test func iceRestartMidCallKeepsMediaFlowing() async throws {
        var call = try await DTLSSessionTests.call()
        try await DTLSSessionTests.waitFor {
            DTLSSessionTests.toneFrames(call.sinkA.samples) >= 5 && DTLSSessionTests.toneFrames(call.sinkB.samples) >= 5
        }
        let newA = try #require(await call.a.restartICE())
        let newB = try #require(await call.b.restartICE())
        let capsA = AudioCapabilities.webRTC(address: "127.0.0.1", port: call.a.localAddress.port, local: newA)
        let offer = OfferAnswer.makeWebRTCOffer(
            capsA, origin: SDPOrigin(sessionID: "1", sessionVersion: 2, address: "127.0.0.1"))
        let capsB = AudioCapabilities.webRTC(address: "127.0.0.1", port: call.b.localAddress.port, local: newB)
        let (answer, audioB) = try OfferAnswer.makeWebRTCAnswer(
            to: try SessionDescription(parsing: offer.serialized()), capabilities: capsB,
            origin: SDPOrigin(sessionID: "2", sessionVersion: 2, address: "127.0.0.1"))
        #expect(offer.serialized().contains("a=ice-ufrag:\(newA.ice.ufrag)"))
        call.offer = offer.serialized()
        try await call.b.apply(audioB)
        try await call.a.apply(
            try OfferAnswer.processAnswer(
                try SessionDescription(parsing: answer.serialized()), offer: offer, capabilities: capsA))
        let before = DTLSSessionTests.toneFrames(call.sinkB.samples)
        try await DTLSSessionTests.waitFor {
            let a = await call.a.iceState
            let b = await call.b.iceState
            return a == .completed && b == .completed && DTLSSessionTests.toneFrames(call.sinkB.samples) >= before + 10
        }
        let stateA = await call.a.iceState
        let stateB = await call.b.iceState
        await call.a.stop()
        await call.b.stop()
        #expect(stateA == .completed && stateB == .completed)
        let completions = call.logA.events.withLock { $0.filter { $0 == .iceStateChanged(.completed) }.count }
        #expect(completions == 2)
        let dtlsConnections = call.logA.events.withLock {
            $0.filter { if case .dtlsConnected = $0 { true } else { false } }.count
        }
        #expect(dtlsConnections == 1)
        #expect(DTLSSessionTests.toneFrames(call.sinkB.samples) >= before + 10)
    }
}
