import Media
import SIPDialog
import Testing

@testable import CallSession

/// The pure call machine: states and actions for each input, table-style.
@Suite struct CallMachineTests {
    static let sdp = SessionBody(text: "v=0\r\n")

    func states(_ actions: [CallMachine.Action]) -> [CallState] {
        actions.compactMap { if case .emit(.state(let s)) = $0 { s } else { nil } }
    }

    @Test func callerRingsAnswersAndHangsUp() {
        var machine = CallMachine(role: .caller)
        #expect(states(machine.start()) == [.calling])
        #expect(machine.handle(.trying) == [.emit(.trying)])
        #expect(machine.handle(.ringing) == [.emit(.state(.ringing)), .emit(.ringing)])
        #expect(machine.handle(.answered(Self.sdp)) == [.emit(.state(.active)), .applyAnswer(Self.sdp, early: false)])
        #expect(machine.hangUp() == [.emit(.state(.ending)), .hangUpSignalling])
        #expect(machine.hangUp() == [])  // idempotent
        #expect(machine.handle(.ended(.localHangUp)) == [.emit(.state(.ended)), .stopMedia])
        #expect(machine.pendingReason == .localHangUp)
        #expect(machine.handle(.ended(.remoteHangUp)) == [])  // reported once
    }

    @Test func earlyMediaThenAnswer() {
        var machine = CallMachine(role: .caller)
        _ = machine.start()
        #expect(
            machine.handle(.earlyMedia(Self.sdp)) == [
                .emit(.state(.early)), .emit(.earlyMedia), .applyAnswer(Self.sdp, early: true),
            ])
        #expect(machine.handle(.earlyMedia(Self.sdp)) == [.applyAnswer(Self.sdp, early: true)])
        #expect(states(machine.handle(.answered(Self.sdp))) == [.active])
    }

    @Test(arguments: [
        (InviteEndReason.busy(status: 486), CallEndReason.busy(status: 486)),
        (.busy(status: 600), .busy(status: 600)),
        (.declined, .declined(status: 603)),
        (.cancelled, .cancelled),
        (.noAnswer, .noAnswer),
        (.timeout, .timeout),
        (.transportError, .networkError),
        (.failed(status: 404, reason: "Not Found"), .failed(status: 404, reason: "Not Found")),
        (.rejected(status: 486), .busy(status: 486)),
        (.rejected(status: 603), .declined(status: 603)),
        (.rejected(status: 488), .failed(status: 488, reason: "rejected locally")),
        (.remoteHangUp, .remoteHangUp),
    ])
    func endReasons(_ signalling: InviteEndReason, _ expected: CallEndReason) {
        var machine = CallMachine(role: .caller)
        _ = machine.start()
        _ = machine.handle(.ended(signalling))
        #expect(machine.state == .ended)
        #expect(machine.pendingReason == expected)
    }

    @Test func rtpTimeoutOutranksTheSignallingReason() {
        var machine = CallMachine(role: .caller)
        _ = machine.start()
        _ = machine.handle(.answered(nil))
        #expect(machine.rtpTimedOut() == [.emit(.state(.ending)), .hangUpSignalling])
        _ = machine.handle(.ended(.localHangUp))
        #expect(machine.pendingReason == .rtpTimeout)
    }

    @Test func rtpTimeoutOnlyWhileActive() {
        var machine = CallMachine(role: .caller)
        _ = machine.start()
        #expect(machine.rtpTimedOut() == [])
    }

    @Test func localHoldAndResume() {
        var machine = CallMachine(role: .caller)
        _ = machine.start()
        _ = machine.handle(.answered(nil))
        machine.reofferSent(direction: .sendonly)
        #expect(
            machine.handle(.offerAnswered(Self.sdp)) == [
                .applyAnswer(Self.sdp, early: false), .emit(.state(.held)),
                .emit(.held(byPeer: false, direction: .sendonly)),
            ])
        machine.reofferSent(direction: .sendrecv)
        #expect(machine.handle(.offerAnswered(nil)) == [.emit(.state(.active)), .emit(.resumed(byPeer: false))])
    }

    @Test func rejectedReofferKeepsTheState() {
        var machine = CallMachine(role: .caller)
        _ = machine.start()
        _ = machine.handle(.answered(nil))
        machine.reofferSent(direction: .sendonly)
        #expect(machine.handle(.offerRejected(status: 488)) == [])
        #expect(machine.state == .active)
    }

    @Test func calleeAnswersAndIsHeldByThePeer() {
        var machine = CallMachine(role: .callee)
        #expect(states(machine.start()) == [.ringing])
        #expect(states(machine.answered()) == [.active])
        #expect(machine.answered() == [])
        #expect(machine.handle(.remoteOffer(Self.sdp)) == [.answerOffer(Self.sdp)])
        #expect(
            machine.peerDirectionChanged(.recvonly) == [
                .emit(.state(.held)), .emit(.held(byPeer: true, direction: .recvonly)),
            ])
        #expect(machine.peerDirectionChanged(.recvonly) == [])
        #expect(machine.peerDirectionChanged(.sendrecv) == [.emit(.state(.active)), .emit(.resumed(byPeer: true))])
    }

    @Test func calleeCancelledWhileRinging() {
        var machine = CallMachine(role: .callee)
        _ = machine.start()
        _ = machine.handle(.ended(.cancelled))
        #expect(machine.state == .ended)
        #expect(machine.pendingReason == .cancelled)
        #expect(machine.pendingReason?.status == 487)
    }
}

/// The simple E-model (ITU-T G.107) behind the MOS estimate.
@Suite struct EModelTests {
    @Test func perfectNetworkIsAboutFourPointFour() {
        let r = EModel.rFactor(oneWayDelayMilliseconds: 0, lossPercent: 0)
        #expect(r == 93.2)
        #expect(abs(EModel.mos(rFactor: r) - 4.41) < 0.01)
    }

    @Test func delayAndLossLowerTheScore() {
        #expect(abs(EModel.delayImpairment(100) - 2.4) < 1e-9)
        #expect(abs(EModel.delayImpairment(277.3) - (0.024 * 277.3 + 11)) < 1e-9)
        #expect(abs(EModel.equipmentImpairment(lossPercent: 4.3) - 47.5) < 1e-9)
        let clean = EModel.mos(rFactor: EModel.rFactor(oneWayDelayMilliseconds: 40, lossPercent: 0))
        let lossy = EModel.mos(rFactor: EModel.rFactor(oneWayDelayMilliseconds: 40, lossPercent: 2))
        let late = EModel.mos(rFactor: EModel.rFactor(oneWayDelayMilliseconds: 400, lossPercent: 0))
        #expect(clean > 4.3 && lossy < clean && late < clean)
        #expect(EModel.mos(rFactor: 0) == 1 && EModel.mos(rFactor: 100) == 4.5)
    }

    @Test func statisticsFromMedia() {
        var media = MediaStatistics()
        media.packetsReceived = 90
        media.packetsSent = 100
        media.cumulativeLost = 10
        media.jitterMilliseconds = 2
        let stats = CallStatistics(media: media)
        #expect(stats.lossPercent == 10)
        #expect(stats.packetsLost == 10)
        #expect(stats.mos! < 2.5 && stats.rFactor != nil)
        let silent = CallStatistics(media: MediaStatistics())  // nothing received: no estimate
        #expect(silent.mos == nil && silent.rFactor == nil && silent.lossPercent == 0)
    }
}
