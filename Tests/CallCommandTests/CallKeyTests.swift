import CallSession
import Media
import Testing
import ToolSupport

@testable import CallCommand

/// What astra-call's command decides without a call: the interactive keys and the exit code an
/// ended call gives (the calls themselves run through the built tool: KamailioTests.AstraCall*).
@Suite struct CallKeyTests {
    @Test func keysMapToCommandsAndOnlyUpperCaseLettersAreDTMF() {
        #expect(CallKey(byte: UInt8(ascii: "h")) == .hangUp)
        #expect(CallKey(byte: UInt8(ascii: "H")) == .holdToggle)
        #expect(CallKey(byte: UInt8(ascii: "s")) == .statistics)
        #expect(CallKey(byte: UInt8(ascii: "q")) == .quit)
        #expect(CallKey(byte: 0x04) == .quit)
        #expect(CallKey(byte: UInt8(ascii: "?")) == .help)
        #expect(CallKey(byte: UInt8(ascii: "5")) == .dtmf(.d5))
        #expect(CallKey(byte: UInt8(ascii: "#")) == .dtmf(.pound))
        #expect(CallKey(byte: UInt8(ascii: "A")) == .dtmf(.a))
        #expect(CallKey(byte: UInt8(ascii: "a")) == nil)
        #expect(CallKey(byte: UInt8(ascii: "x")) == nil)
    }

    @Test func anEndedCallGivesTheDocumentedExitCode() {
        #expect(CallRun.exitCode(for: .localHangUp, interrupted: false) == .success)
        #expect(CallRun.exitCode(for: .remoteHangUp, interrupted: true) == .success)
        #expect(CallRun.exitCode(for: .noAnswer, interrupted: false) == .network)
        #expect(CallRun.exitCode(for: .rtpTimeout, interrupted: false) == .network)
        #expect(CallRun.exitCode(for: .busy(status: 486), interrupted: false) == .failure)
        #expect(CallRun.exitCode(for: .cancelled, interrupted: false) == .failure)
        #expect(CallRun.finalStatus(of: .declined(status: 603)) == 603)
        #expect(CallRun.finalStatus(of: .localHangUp) == nil)
    }
}
