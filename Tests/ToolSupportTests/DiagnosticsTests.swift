import SIPCore
import Testing
import ToolSupport

@Suite struct DiagnosticsTests {
    @Test func diagnosticsAreRedactedAndFilteredByLevel() {
        let sink = BufferSink()
        let quiet = Diagnostics(tool: "astra-register", level: .normal, sink: sink)
        quiet.info("hidden")
        quiet.debug("hidden")
        quiet.error("bad line: password=hunter2")
        quiet.warning("two\nlines")
        quiet.trace("not traced")
        let loud = Diagnostics(
            tool: "astra-register", level: Diagnostics.Level(verbosity: 5), sipTrace: true, sink: sink)
        loud.info("shown")
        loud.debug("also shown")
        loud.trace("REGISTER sip:x SIP/2.0\r\nAuthorization: Digest response=\"abcd\"\r\n")
        let r = Redaction.placeholder
        #expect(
            sink.text
                == "astra-register: bad line: password=\(r)\n" + "astra-register: warning: two lines\n"
                + "astra-register: shown\n" + "astra-register: debug: also shown\n"
                + "REGISTER sip:x SIP/2.0\r\nAuthorization: Digest response=\"\(r)\"\r\n")
    }
}
