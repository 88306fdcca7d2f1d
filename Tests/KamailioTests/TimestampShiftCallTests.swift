import AstraTestSupport
import Foundation
import Media
import Synchronization
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// A held and resumed call whose caller, from the resume on, moves its RTP timestamps by 400
    /// instead of 160 per packet at the switch (same SSRC, sequence numbers going on) — as a
    /// widely used softphone does — emulated by a relay on the caller → callee RTP path that adds
    /// 240 to every timestamp from the 80th packet (1.6 s, the resume), with or without setting
    /// the marker bit on the first. Judged on the callee's `--record` file: the caller's 440 Hz
    /// tone is there after the resume (before: silence from the resume to the end of the call).
    @Suite struct TimestampShiftCallTests {
        typealias H = CallToolHarness

        /// Rewrites the caller's RTP (PCMA, RFC 3550 §5.1 header) once it has passed `from` packets.
        final class Shifter: Sendable {
            let from: Int
            let marker: Bool
            private let count = Mutex(0)
            init(from: Int, marker: Bool) {
                self.from = from
                self.marker = marker
            }
            var shifted: Int { count.withLock { max(0, $0 - from) } }

            func rewrite(_ datagram: [UInt8], toCallee: Bool) -> [UInt8] {
                guard toCallee, datagram.count > 12, datagram[0] >> 6 == 2, datagram[1] & 0x7F == 8 else { return datagram }
                let n = count.withLock { c -> Int in
                    c += 1
                    return c
                }
                guard n > from else { return datagram }
                var out = datagram
                var ts = UInt32(out[4]) << 24 | UInt32(out[5]) << 16 | UInt32(out[6]) << 8 | UInt32(out[7])
                ts &+= 240
                for (i, shift) in [24, 16, 8, 0].enumerated() { out[4 + i] = UInt8(truncatingIfNeeded: ts >> UInt32(shift)) }
                if marker && n == from + 1 { out[1] |= 0x80 }
                return out
            }
        }

        @Test(arguments: [false, true]) func theCalleeHearsTheCallerAfterAShiftedResume(marker: Bool) async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let calleeRTP = TestPorts.freeUDP(alignment: 2, span: 4), callerRTP = calleeRTP + 2
            let shifter = Shifter(from: 80, marker: marker)
            let toCallee = try LossyUDPRelay(target: calleeRTP, loss: 0, seed: 1) { shifter.rewrite($0, toCallee: $1) }
            defer { toCallee.stop() }
            let calleeWAV = H.temporaryPath("shift-callee")
            defer { try? FileManager.default.removeItem(atPath: calleeWAV) }
            let callee = try await H.callee(
                server, .udp, user: "1093",
                ["--record", calleeWAV, "--rtp-port", String(calleeRTP), "--sdp-port", String(toCallee.port)])
            let caller = try H.dial(
                server, .udp, user: "1094", to: "1093",
                [
                    "--tone", "440", "--duration", "4", "--hold-after", "1", "--resume-after", "1.6",
                    "--rtp-port", String(callerRTP),
                ])
            #expect(await caller.exitStatus(within: .seconds(30)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(15)) == 0, "callee: \(callee.stderr)")
            #expect(callee.events("resumed").count == 1, "\(callee.stdout)")
            #expect(shifter.shifted > 50, "packets shifted: \(shifter.shifted)")
            let samples = try WAVFile.read(path: calleeWAV).samples
            let lastSecondAndAHalf = Array(samples.suffix(12_000))
            let heardAfter = Goertzel.toneSeconds(lastSecondAndAHalf, frequency: 440)
            #expect(heardAfter >= 1.0, "440 Hz in the recording's last 1.5 s: \(heardAfter) s")
            #expect(Goertzel.toneSeconds(samples, frequency: 440) >= 3.0, "the whole call")
        }
    }
}
