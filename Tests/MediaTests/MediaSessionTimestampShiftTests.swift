import AstraTestSupport
import SIPCore
import Testing

@testable import Media

/// What the far end hears when a softphone resumes a held call the way a widely used one
/// does: same SSRC, sequence numbers going on, but the RTP timestamp moved by 400 instead of
/// 160 (off the 160-sample frame grid), with or without the marker bit, and with or without a
/// pause in sending that the timestamps do not count. Real UDP on 127.0.0.1, real time (~2.5 s
/// each); judged on the session's recording, not on packet counters: the tone sent after the
/// resume (1 kHz, where it was 440 Hz before) must be in it. Before, the recording went silent
/// at the resume although every packet arrived.
@Suite struct MediaSessionTimestampShiftTests {
    static let frames = 100
    static let resumeAt = 50

    @Test(arguments: [false, true], [0, 400])
    func theToneAfterAResumeIsInTheRecording(marker: Bool, pauseMs: Int) async throws {
        let receiver = try MediaSession(
            configuration: MediaSessionConfiguration(), clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 29))
        let phone = try UDPSocket(bindHost: "127.0.0.1")
        let sink = RecordingSink()
        await receiver.start(remote: phone.localAddress, sink: sink)
        var before = ToneGenerator(frequencies: [440], amplitude: 10000)
        var after = ToneGenerator(frequencies: [1000], amplitude: 10000)
        let start = ContinuousClock.now
        for i in 0..<Self.frames {
            let resumed = i >= Self.resumeAt
            var frame = [Int16](repeating: 0, count: 160)
            if resumed { _ = after.read(into: &frame) } else { _ = before.read(into: &frame) }
            let header = RTPHeader(
                marker: marker && i == Self.resumeAt, payloadType: 8, sequenceNumber: UInt16(7000 + i),
                timestamp: 90_000 &+ UInt32(160 * i) &+ (resumed ? 240 : 0), ssrc: 0x5AFE_0001)
            _ = phone.send(RTPPacket(header: header, payload: G711.encode(.aLaw, frame)).serialized(), to: receiver.localAddress)
            let pause = Duration.milliseconds(i + 1 >= Self.resumeAt ? pauseMs : 0)
            try await Task.sleep(until: start + .milliseconds(20 * (i + 1)) + pause, clock: .continuous)  // the sender's pacing
        }
        // Everything received has left the buffer (played, or dropped and counted).
        try await MediaSessionTests.wait(for: receiver, timeout: .seconds(10)) {
            $0.packetsReceived == Self.frames && $0.jitterBuffer.buffered == 0
        }
        let stats = await receiver.statistics
        await receiver.stop()
        let recording = sink.samples
        let heardBefore = Goertzel.toneSeconds(recording, frequency: 440)
        let heardAfter = Goertzel.toneSeconds(recording, frequency: 1000)
        #expect(stats.packetsReceived == Self.frames, "\(stats.packetsReceived) packets arrived")
        #expect(heardBefore >= 0.7, "440 Hz before the resume: \(heardBefore) s of 1 s")
        #expect(heardAfter >= 0.7, "1 kHz after the resume: \(heardAfter) s of 1 s; \(stats.jitterBuffer)")
        #expect(stats.jitterBuffer.buffered == 0, "frames left behind: \(stats.jitterBuffer.buffered)")
        #expect(stats.jitterBuffer.played >= Self.frames - 10, "\(stats.jitterBuffer)")
    }
}
