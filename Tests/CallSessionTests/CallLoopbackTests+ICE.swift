import AstraTestSupport
import Media
import SIPCore
import SIPDialog
import Synchronization
import Testing

@testable import CallSession

/// A one-socket STUN server on 127.0.0.1 built on the project's STUN codec: it answers every
/// Binding request with a fixed "public" mapping, as a NAT would — or, `dead`, never answers.
final class TestSTUNServer: Sendable {
    let socket: UDPSocket
    let mapped = STUNTransportAddress(host: "203.0.113.9", port: 61001)!
    let requests = Mutex(0)
    let stopped = Mutex(false)

    init(dead: Bool = false) throws {
        socket = try UDPSocket(bindHost: "127.0.0.1")
        Task.detached { [self] in
            var buffer = [UInt8](repeating: 0, count: 1500)
            while !self.stopped.withLock({ $0 }) {
                guard let (n, from) = buffer.withUnsafeMutableBytes({ self.socket.receive(into: $0) }), let from else {
                    try? await Task.sleep(for: .milliseconds(2))  // poll interval of a bounded wait
                    continue
                }
                guard let request = try? STUNMessage(parsing: Array(buffer[0..<n])), request.messageClass == .request
                else { continue }
                self.requests.withLock { $0 += 1 }
                if dead { continue }
                let response = STUNMessage(
                    .successResponse, transactionID: request.transactionID,
                    attributes: [.xorMappedAddress(self.mapped, transactionID: request.transactionID)])
                self.socket.send(response.encoded(), to: from)
            }
        }
    }

    var address: UDPSocket.Address { socket.localAddress }
    func stop() { stopped.withLock { $0 = true } }
}

extension CallLoopbackTests {
    /// Share of 20 ms blocks of `samples[range]` that carry `frequency`.
    static func toneShare(_ samples: [Int16], _ range: Range<Int>, _ frequency: Double) -> Double {
        let blocks = stride(from: range.lowerBound, to: range.upperBound - 159, by: 160).map { start in
            let block = samples[start..<start + 160]
            let energy = Goertzel.energy(block)
            return energy > 0 && Goertzel.power(block, frequency: frequency, sampleRate: 8000) / energy > 0.3
        }
        return blocks.isEmpty ? 0 : Double(blocks.filter { $0 }.count) / Double(blocks.count)
    }

    /// RFC 8445 §5.1.1.2 over SIP without trickle: the caller's INVITE waits for its STUN
    /// server and carries the server-reflexive candidate (priority, foundation, raddr/rport);
    /// then an ICE restart by re-INVITE (RFC 8445 §9, RFC 8839 §4.4.1.1.1) mid-call: both
    /// sides take new credentials, the new pair is nominated, DTLS is not redone (RFC 8842 §5)
    /// and the callee hears the caller's tone all through the restart. Either side restarts: the
    /// callee's re-offer pins `a=setup:active` (it is the DTLS client), the caller's `passive`.
    @Test(arguments: [true, false]) func webRTCWithSTUNThenICERestartMidCall(callerRestarts: Bool) async throws {
        let stun = try TestSTUNServer()
        defer { stun.stop() }
        let pair = try await Pair(callerMedia: .webRTC) {
            $0.webRTC.stunServer = stun.address
            $0.webRTC.ice.gatheringTimeout = .seconds(3)  // the srflx line is the point here, not the bound
        }
        defer { pair.close() }
        let offer = try #require(String(validating: pair.invite.request.bodyBytes, as: UTF8.self))
        let sdp = try SessionDescription(parsing: offer)
        let candidates = try #require(sdp.media.first).candidates
        let host = try #require(candidates.first { $0.type == "host" })
        let srflx = try #require(candidates.first { $0.type == "srflx" }, "no srflx candidate in\n\(offer)")
        #expect(srflx.address == "203.0.113.9" && srflx.port == 61001)
        #expect(srflx.relatedAddress == host.address && srflx.relatedPort == host.port)
        #expect(srflx.priority == ICEAgentCandidate.priority(kind: .serverReflexive, localPreference: 65535))
        #expect(srflx.foundation != host.foundation)
        #expect(stun.requests.withLock { $0 } >= 1)
        #expect(pair.inviteDelay < .seconds(3), "the INVITE waited \(pair.inviteDelay): the server's answer ended it")

        await pair.callee.ring()
        await pair.callee.answer()
        #expect(await eventually { Self.heard(pair.calleeSink.samples, 440) }, "callee hears the caller's tone")
        // 700 ms of the call played at the caller before the restart (its stats below count them).
        #expect(await eventually { pair.callerSink.samples.count >= 8 * 700 })
        let before = pair.calleeSink.samples.count
        await (callerRestarts ? pair.caller : pair.callee).restartICE()
        try await Task.sleep(for: .milliseconds(600))  // the window observed: playout across the restart
        let after = pair.calleeSink.samples.count
        #expect(after - before > 3200, "callee playout went on during the restart")
        let share = Self.toneShare(pair.calleeSink.samples, before..<after, 440)
        #expect(share > 0.9, "tone in \(share * 100) % of the frames during the restart")
        #expect(Self.heard(pair.callerSink.samples, 1000), "caller still hears the callee")
        #expect(await pair.callee.state == .active)
        await pair.caller.hangUp()
        let callerEvents = await pair.callerEvents.value
        let calleeEvents = await pair.calleeEvents.value
        for (events, byPeer) in [(callerEvents, !callerRestarts), (calleeEvents, callerRestarts)] {
            let restarts = events.compactMap {
                if case .iceRestarted(let b, _, _, let ms) = $0 { (b, ms) } else { nil }
            }
            #expect(restarts.count == 1 && restarts.first?.0 == byPeer, "\(events)")
            #expect((restarts.first?.1 ?? 1000) < 500)
            #expect(events.filter { if case .dtlsConnected = $0 { true } else { false } }.count == 1)
            #expect(!events.contains { if case .held = $0 { true } else { false } })
        }
        guard case .ended(.localHangUp, let stats) = callerEvents.last else {
            Issue.record("caller: \(callerEvents)")
            return
        }
        #expect(stats.packetsReceived > 50)
    }

    /// A dead STUN server holds the INVITE up only for the gathering timeout (here 300 ms),
    /// then the offer goes out with host candidates and the call works.
    @Test func deadSTUNServerDelaysTheOfferOnlyByTheGatheringTimeout() async throws {
        let stun = try TestSTUNServer(dead: true)
        defer { stun.stop() }
        let pair = try await Pair(callerMedia: .webRTC) {
            $0.webRTC.stunServer = stun.address
            $0.webRTC.ice.gatheringTimeout = .milliseconds(300)
        }
        defer { pair.close() }
        let offer = try #require(String(validating: pair.invite.request.bodyBytes, as: UTF8.self))
        #expect(!offer.contains("typ srflx") && offer.contains("typ host"))
        #expect(stun.requests.withLock { $0 } >= 2, "the Binding request is retransmitted")
        #expect(pair.inviteDelay >= .milliseconds(290) && pair.inviteDelay < .milliseconds(1500), "\(pair.inviteDelay)")
        await pair.callee.answer()
        #expect(await eventually { Self.heard(pair.calleeSink.samples, 440) })
        await pair.caller.hangUp()
        let callerEvents = await pair.callerEvents.value
        guard case .ended(.localHangUp, _) = callerEvents.last else {
            Issue.record("caller: \(callerEvents)")
            return
        }
    }
}
