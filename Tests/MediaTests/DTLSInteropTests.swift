import Foundation
import SIPCore
import Testing

@testable import Media

/// Interop with an independent WebRTC implementation (aiortc, from PyPI) on 127.0.0.1: we
/// offer, aiortc answers; ICE and DTLS-SRTP complete and a 1 kHz tone goes both ways.
/// Runs only when `ASTRA_AIORTC_PYTHON` names a Python with aiortc installed (the full
/// interop suite with Kamailio/rtpengine comes with astra-call, issue 9).
@Suite(.serialized) struct DTLSInteropTests {
    static let python = ProcessInfo.processInfo.environment["ASTRA_AIORTC_PYTHON"]

    @Test(.enabled(if: python != nil), .timeLimit(.minutes(1)))
    func aiortcAnswersOurOfferAndAudioFlowsBothWays() async throws {
        var config = DTLSSessionTests.configuration(role: .controlling)
        config.rtcpInterval = .seconds(1)
        let a = try MediaSession(configuration: config, clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 21))
        let log = DTLSSessionTests.EventLog(a)
        let sink = RecordingSink()
        await a.start(
            remote: nil, source: ToneGenerator(frequencies: [1000], amplitude: 10000, duration: .seconds(10)),
            sink: sink)
        let local = try #require(await a.webRTCLocalParameters())
        let caps = AudioCapabilities.webRTC(address: "127.0.0.1", port: a.localAddress.port, local: local)
        let offer = OfferAnswer.makeWebRTCOffer(
            caps, origin: SDPOrigin(sessionID: "7", sessionVersion: 1, address: "127.0.0.1"))

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/interop/aiortc_peer.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.python))
        process.arguments = [script.path, "4"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let offerJSON = try JSONSerialization.data(withJSONObject: offer.serialized(), options: .fragmentsAllowed)
        input.fileHandleForWriting.write(offerJSON + Data("\n".utf8))

        let reader = output.fileHandleForReading
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        Thread.detachNewThread {
            var buffer = ""
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                buffer += String(decoding: chunk, as: UTF8.self)
                while let nl = buffer.firstIndex(of: "\n") {
                    continuation.yield(String(buffer[..<nl]))
                    buffer = String(buffer[buffer.index(after: nl)...])
                }
            }
            continuation.finish()
        }
        var iterator = lines.makeAsyncIterator()
        let answerLine = try #require(await iterator.next(), "aiortc printed no answer")
        let answerText = try #require(
            try JSONSerialization.jsonObject(with: Data(answerLine.utf8), options: .fragmentsAllowed) as? String)
        let answer = try SessionDescription(parsing: answerText)
        #expect(answerText.contains("UDP/TLS/RTP/SAVPF") && answerText.contains("a=setup:active"))
        let audio = try OfferAnswer.processAnswer(answer, offer: offer, capabilities: caps)
        try await a.apply(audio)
        let resultLine = try #require(await iterator.next(), "aiortc printed no result")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(resultLine.utf8)) as? [String: Any])
        process.waitUntilExit()
        let stats = await a.statistics
        await a.stop()
        let heard = DTLSSessionTests.toneFrames(sink.samples)
        #expect(
            log.contains { if case .dtlsConnected(_, .server) = $0 { true } else { false } },
            "\(log.events.withLock { $0 })")
        #expect(result["ice"] as? String == "completed", "\(result)")
        #expect(result["dtls"] as? String == "connected", "\(result)")
        #expect((result["tone_frames"] as? Int ?? 0) >= 25, "aiortc heard \(result)")
        #expect(heard >= 25, "we heard \(heard) tone frames; \(stats)")
        #expect(stats.srtpAuthenticationFailures == 0)
    }
}
