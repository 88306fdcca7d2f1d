import AstraTestSupport
import Foundation
import Testing
import ToolSupport

@testable import Capture

/// The ladder of a captured flow: lanes per address, labels naming method and status, red for
/// failures, in the terminal (golden text) and as SVG (well-formed, rendered by rsvg-convert).
@Suite struct SIPLadderTests {
    typealias F = CaptureFixtures

    static var ladder: SIPLadder {
        var ladder = SIPLadder()
        for packet in F.call where packet.content == .sip { ladder.add(packet) }
        return ladder
    }

    @Test func labelsNameMethodStatusAndSDP() {
        #expect(SIPLadder.label(F.register1) == ("REGISTER", .normal))
        #expect(SIPLadder.label(F.challenge) == ("401 Unauthorized (REGISTER)", .normal))
        #expect(SIPLadder.label(F.invite) == ("INVITE (SDP)", .normal))
        #expect(SIPLadder.label(F.busy) == ("486 Busy Here (INVITE)", .error))
        #expect(SIPLadder.label(Array("hello".utf8)) == ("(not SIP: 5 bytes)", .error))
    }

    @Test func lanesAndArrows() {
        let diagram = Self.ladder.diagram
        #expect(diagram.lanes.map(\.title) == ["127.0.0.1:40112", "127.0.0.1:8443", "127.0.0.1:5062", "127.0.0.1:5060"])
        #expect(diagram.steps.map(\.mark) == [
            .arrow(from: 0, to: 1), .arrow(from: 1, to: 0), .arrow(from: 0, to: 1), .arrow(from: 1, to: 0),
            .arrow(from: 2, to: 3), .arrow(from: 3, to: 2),
        ])
        #expect(diagram.steps.map(\.time) == ["0.000", "0.004", "0.006", "0.009", "0.020", "0.300"])
        #expect(diagram.steps.map(\.number) == [1, 2, 3, 4, 5, 6])
    }

    @Test func aRepeatedMessageIsGrey() {
        var ladder = SIPLadder()
        ladder.add(F.packet(0, .sent, F.invite, transport: .udp))
        let again = ladder.add(F.packet(500, .sent, F.invite, transport: .udp)).step
        #expect(again.label == "INVITE (SDP) (again)" && again.style == .muted)
    }

    @Test func terminalLadderGolden() {
        var ladder = SIPLadder()
        for packet in F.call.prefix(4) { ladder.add(packet) }
        let text = LadderText(lanes: ladder.diagram.lanes, gap: 34).render(ladder.diagram)
        let expected = """
            time       #              127.0.0.1:40112                   127.0.0.1:8443
                                         local WSS                            WSS
            0.000      1                     │─────────── REGISTER ───────────▶│
            0.004      2                     │◀─ 401 Unauthorized (REGISTER) ──│
            0.006      3                     │─────────── REGISTER ───────────▶│
            0.009      4                     │◀────── 200 OK (REGISTER) ───────│

            """
        #expect(text == expected, "\n\(text)")
    }

    @Test func colourMarksOnlyTheFailure() {
        let diagram = Self.ladder.diagram
        let layout = LadderText(fitting: diagram, color: true)
        let lines = diagram.steps.map { layout.line($0) }
        #expect(lines.filter { $0.contains("\u{1B}[31m") }.count == 1)
        #expect(lines[5].contains("486 Busy Here"))
    }

    @Test func svgIsWellFormedAndRenders() async throws {
        let svg = SequenceDiagramSVG().render(Self.ladder.diagram)
        #expect(svg.contains("486 Busy Here (INVITE)"))
        #expect(svg.contains("#c62828"), "the failure is red")
        let path = F.temporaryPath("ladder")
        defer { for suffix in [".svg", ".png"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try svg.write(toFile: path + ".svg", atomically: true, encoding: .utf8)
        let xml = try await ChildProcess.run(command: "python3", ["-c", "import sys,xml.dom.minidom as m; m.parse(sys.argv[1])", path + ".svg"])
        #expect(xml.status == 0, "\(xml.stderr)")
        let png = try await ChildProcess.run(command: "rsvg-convert", ["-o", path + ".png", path + ".svg"])
        #expect(png.status == 0, "\(png.stderr)")
        let size = (try? FileManager.default.attributesOfItem(atPath: path + ".png")[.size] as? Int) ?? 0
        #expect(size > 1000)
    }

    @Test func xmlEscaping() {
        #expect(SequenceDiagramSVG.escape("a<b & \"c\">\u{7}") == "a&lt;b &amp; &quot;c&quot;&gt; ")
    }
}
