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

    /// qr-image target: a 16-byte PPM header claiming 1×55,722,122 pixels made the Netpbm
    /// reader reserve 1.3 GB for samples the file did not hold (out of memory), and a 15-byte
    /// PBM header 142×212,022 a quarter of that (seen as a timeout). A header claiming more
    /// pixels than the file's bytes can hold is now refused before anything is allocated.
    @Test func netpbmHeaderClaimingMorePixelsThanTheFileIsRefused() {
        let crashes: [[UInt8]] = [Array("P3 1 \n55722122 8".utf8), Array("P1142 212022 0\n".utf8)]
        for bytes in crashes + [Array("P5 4000 4000 255\n".utf8) + [1, 2, 3], Array("P4 8000 8000\n".utf8)] {
            do {
                _ = try NetpbmCodec.decode(bytes)
                Issue.record("decoded \(bytes.count) bytes")
            } catch {
                #expect(error.code == .corruptImage)
                #expect(error.detail.hasSuffix("truncated pixel data"), "\(error.detail)")
            }
        }
        let small = Array("P2 2 1 255\n0 255".utf8)
        #expect((try? NetpbmCodec.decode(small))?.pixels == [0, 255])
    }
}
