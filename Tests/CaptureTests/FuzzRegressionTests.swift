import Capture
import Foundation
import Testing

/// Inputs the `trace-file` fuzz target found (docs/fuzzing.md, Findings).
@Suite struct FuzzRegressionTests {
    /// The crashing line, cut to the fields that matter: a time with seven fractional digits.
    /// It was read to the nanosecond but written back to the microsecond (the format's
    /// precision), so `astra-trace` read back, and wrote out, another instant.
    static let sevenDigitTime =
        #"{"event":"sip","t":40,"time":"2025-11-30T07:05:12.1230456Z","direction":"sent","transport":"wss","#
        + #""local":"127.0.0.1:40112","remote":"127.0.0.1:5060","bytes":34,"#
        + #""message":"OPTIONS sip:user@example.com SIP/2.0\r\n\r\n"}"#

    @Test func aTimeFinerThanTheFormatIsRefused() {
        do {
            _ = try CapturedPacket(traceLine: Array(Self.sevenDigitTime.utf8), where: "trace.jsonl:2")
            Issue.record("a seven-digit fraction was accepted")
        } catch {
            #expect(error.message.hasPrefix("trace.jsonl:2: \"time\" is not"), "\(error.message)")
        }
    }

    @Test func everyPrecisionTheFormatKeepsRoundTrips() throws {
        for fraction in ["1", "123", "123045", "000001"] {
            let line = Self.sevenDigitTime.replacingOccurrences(of: "12.1230456Z", with: "12.\(fraction)Z")
            let packet = try CapturedPacket(traceLine: Array(line.utf8), where: "x:1")
            let again = try CapturedPacket(traceLine: Array(packet.traceLine(since: packet.time).utf8), where: "x:2")
            #expect(again == packet, "\(fraction)")
        }
    }
}
