import Provisioning
import SIPCore
import Testing

/// Inputs found by `make fuzz` (docs/fuzzing.md), each kept as the regression test of its fix.
@Suite struct FuzzRegressionTests {
    /// qr-payload target: a line whose sealed password was U+037E GREEK QUESTION MARK. The
    /// compact encoder leaves it as it is, but the decoder split the payload on the Character
    /// `;`, which Swift finds canonically equivalent to U+037E — the field was cut and the
    /// line came back without its sealed password. The decoder now splits on scalars.
    @Test func compactPayloadKeepsAValueCanonicallyEquivalentToTheSeparator() throws {
        let crash = #"{"v":1,"user":"0","password_sealed":"\#u{37E}","domain":"e"}"#
        let (line, _) = try ProvisioningPayload.line(from: crash)
        #expect(line.sealedPassword == "\u{37E}")
        let compact = CompactPayload.encode(line)
        #expect(try CompactPayload.decode(compact) == line)
        for value in ["a\u{37E}b", "\u{37E}\u{37E}", "x=\u{37E}y"] {
            var other = line
            other.displayName = value
            #expect(try CompactPayload.decode(CompactPayload.encode(other)).displayName == value)
        }
    }
}
