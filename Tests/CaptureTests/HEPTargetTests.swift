import Testing
import ToolSupport

@testable import Capture

/// `--hep`: UDP is HEP's transport here, so `HOST:PORT` works as `udp:HOST:PORT` does; another
/// scheme or a missing port is one clear usage line.
@Suite struct HEPTargetTests {
    @Test func theUDPPrefixIsOptional() throws {
        for text in ["127.0.0.1:9060", "udp:127.0.0.1:9060", "UDP:127.0.0.1:9060"] {
            let target = try CaptureHub.parseHEPTarget(text)
            #expect(target.host == "127.0.0.1" && target.port == 9060, "\(text)")
        }
        let named = try CaptureHub.parseHEPTarget("homer.example.com:9060")
        #expect(named.host == "homer.example.com" && named.port == 9060)
        let v6 = try CaptureHub.parseHEPTarget("[::1]:9060")
        #expect(v6.host == "::1" && v6.port == 9060)
    }

    @Test func otherSchemesAndMissingPartsAreOneClearLine() {
        let cases = [
            ("tcp:127.0.0.1:9060", "--hep 'tcp:127.0.0.1:9060': HEP over tcp is not offered: write HOST:PORT or udp:HOST:PORT (HEP over UDP, e.g. 127.0.0.1:9060)"),
            ("127.0.0.1", "--hep '127.0.0.1': no port (HOST:PORT, e.g. 127.0.0.1:9060)"),
            ("udp::9060", "--hep 'udp::9060': no host (HOST:PORT, e.g. 127.0.0.1:9060)"),
        ]
        for (text, message) in cases {
            do {
                _ = try CaptureHub.parseHEPTarget(text)
                Issue.record("\(text) accepted")
            } catch {
                #expect(error.message == message)
                #expect(error.code == .usage)
            }
        }
    }
}
