import Testing
@testable import ToolSupport

/// What a terminal shows fits its width (`TIOCGWINSZ`, 80 columns when unknown): the
/// interactive call's status line and the SIP ladder, at 80, 120 and 40 columns. A line wider
/// than the terminal wraps, and a status line redrawn with `\r` then leaves half-lines behind.
@Suite struct TerminalWidthTests {
    static let widths = [80, 120, 40]

    static func inCall(_ state: CallStatusText.State = .inCall) -> CallStatusText {
        var status = CallStatusText(state: state)
        status.seconds = 72
        status.codec = "PCMA"
        status.packetsSent = 3_612
        status.packetsReceived = 3_610
        status.packetsExpected = 3_611
        status.lossPercent = 0.03
        status.jitterMilliseconds = 0.31
        return status
    }

    @Test(arguments: widths) func theCallStatusLineFitsTheStatusLineWidth(columns: Int) {
        let width = StatusLine(sink: BufferSink(isTerminal: true, columns: columns)).width
        #expect(width == columns - 1, "one column spare: a full-width line leaves the cursor pending a wrap")
        for state in [CallStatusText.State.noCall, .settingUp, .inCall, .onHold, .heldByPeer] {
            var status = Self.inCall(state)
            status.packetsSent = 123_456
            status.packetsReceived = 123_450
            let line = status.render(width: width)
            #expect(line.count <= width, "\(state) at \(columns): \(line.count) \(line)")
            #expect(!line.hasSuffix("…"), "whole pieces are dropped, not cut: \(line)")
        }
    }

    @Test func whatStaysOnANarrowTerminal() {
        let status = Self.inCall()
        #expect(status.render(width: 119)
            == "● in call 1:12 PCMA · ↑3612 ↓3610 · loss 0.0 % · jitter 0.3 ms · h hang up · H hold · s stats · q quit · ? keys")
        #expect(status.render(width: 79) == "● in call 1:12 PCMA · ↑3612 ↓3610 · loss 0.0 % · jitter 0.3 ms · ? keys")
        #expect(status.render(width: 39) == "● in call 1:12 · loss 0.0 % · ? keys")
    }

    @Test func lossWaitsForEnoughPacketsToMeanSomething() {
        var status = Self.inCall()
        status.seconds = 0
        status.packetsReceived = 1
        status.packetsExpected = 2
        status.lossPercent = 50
        let line = status.render(width: 119)
        #expect(!line.contains("loss"), "\(line)")
        status.packetsExpected = CallStatusText.lossAfterPackets
        status.packetsReceived = CallStatusText.lossAfterPackets - 1
        status.lossPercent = 2
        #expect(status.render(width: 119).contains("loss 2.0 %"))
    }

    @Test func onHoldTheHintOffersResume() {
        for width in [119, 79] {
            let held = Self.inCall(.onHold).render(width: width)
            #expect(held.hasPrefix("● on hold 1:12") && !held.contains("H hold"), "\(held)")
        }
        #expect(Self.inCall(.onHold).render(width: 119).contains("H resume"))
        #expect(Self.inCall(.heldByPeer).render(width: 119).contains("H hold"), "held by them: H still holds here")
    }

    @Test func statusLineCutsAndDefaultsToEighty() {
        #expect(StatusLine(sink: BufferSink(isTerminal: true)).width == 79)
        let sink = BufferSink(isTerminal: true, columns: 40)
        StatusLine(sink: sink).show(String(repeating: "x", count: 100))
        #expect(sink.text == "\r\u{1B}[K" + String(repeating: "x", count: 38) + "…")
    }

    static let ladder: SequenceDiagram = {
        let lanes = [SequenceDiagram.Lane("127.0.0.1:40112", subtitle: "local WSS"),
                     SequenceDiagram.Lane("127.0.0.1:8443", subtitle: "WSS")]
        let labels = ["INVITE (SDP)", "407 Proxy Authentication Required (INVITE)", "INVITE (SDP)",
                      "100 Trying (INVITE)", "180 Ringing (INVITE)", "200 OK (INVITE) (SDP)", "ACK", "BYE", "200 OK (BYE)"]
        let steps = labels.enumerated().map { index, label in
            SequenceDiagram.Step(time: "0.0\(index)0", mark: label.first!.isNumber ? .arrow(from: 1, to: 0) : .arrow(from: 0, to: 1),
                                 label: label, number: index + 1)
        } + [SequenceDiagram.Step(time: "0.100", mark: .note(lane: 1), label: "RTP 50 packets, 0 lost, jitter 0.2 ms, codec PCMA")]
        return SequenceDiagram(title: "SIP trace", lanes: lanes, steps: steps,
                               legend: [SequenceDiagram.Note(String(repeating: "legend ", count: 20))])
    }()

    @Test(arguments: widths) func theLadderFitsTheTerminal(columns: Int) {
        let text = LadderText(fitting: Self.ladder, width: columns).render(Self.ladder)
        let widest = text.split(separator: "\n").map(\.count).max() ?? 0
        #expect(widest <= columns, "\(columns) columns: a line of \(widest)\n\(text)")
        #expect(text.contains("BYE"), "short labels survive: \(text)")
    }

    @Test func theLadderUsesWhatRoomThereIs() {
        let wide = LadderText(fitting: Self.ladder, width: 120)
        #expect(wide.gap == 50, "the labels' own width (not the terminal's) when there is room")
        #expect(LadderText(fitting: Self.ladder, width: 80).gap == 32)
        #expect(LadderText(fitting: Self.ladder, width: 40).gap == LadderText.minimumGap)
        #expect(LadderText(fitting: Self.ladder).gap == 50, "no width: as before")
    }
}
