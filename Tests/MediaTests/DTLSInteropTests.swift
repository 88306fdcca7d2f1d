import AstraJSON
import AstraTestSupport
import Foundation
import SIPCore
import Testing

@testable import Media

/// Interop with an independent WebRTC implementation (aiortc, from PyPI) on 127.0.0.1, both
/// ways round: ICE and DTLS-SRTP complete and a 1 kHz tone goes both ways. Runs when
/// `ASTRA_AIORTC_PYTHON` names a Python with aiortc installed: `make deps` installs it in a
/// venv (scripts/install-interop.sh) and scripts/run-tests.sh exports the variable. Without
/// it the tests are skipped with that reason — except under `CI=true`, where
/// ``aiortcIsThereInCI()`` fails: CI must run the interop.
@Suite(.serialized) struct DTLSInteropTests {
    static let python = ProcessInfo.processInfo.environment["ASTRA_AIORTC_PYTHON"]
    static let skipReason: Comment =
        "ASTRA_AIORTC_PYTHON is not set: no aiortc venv (scripts/install-interop.sh; make deps installs it)"

    /// CI (`CI=true`, as .ci/run is started) must have the independent peer.
    @Test func aiortcIsThereInCI() {
        guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
        #expect(Self.python != nil, "CI=true: \(Self.skipReason)")
    }

    /// aiortc_peer.py as a child process with line-based JSON on stdin/stdout: a conversation
    /// through ``ChildProcess`` (the tests' one launcher), so no pool thread blocks on a pipe.
    final class Peer {
        let child: ChildProcess.Running
        /// Each line is awaited this long at most: a Python start with aiortc's imports on two
        /// busy cores takes seconds; the test's own time limit is the outer bound.
        static let lineBound: Duration = .seconds(50)

        init(mode: String, seconds: Int) throws {
            let script = RepositoryRoot.appending("scripts/interop/aiortc_peer.py")
            child = try ChildProcess.startConversation(
                URL(fileURLWithPath: python ?? "/usr/bin/python3"), [script.path, mode, String(seconds)])
        }

        deinit { child.signal(SIGKILL) }

        func send(sdp: String) throws {
            let json = try JSONSerialization.data(withJSONObject: sdp, options: .fragmentsAllowed)
            try child.send(line: String(decoding: json, as: UTF8.self))
        }

        func receiveSDP() async throws -> String {
            let line = try #require(
                await child.readLine(within: Self.lineBound), "aiortc printed no SDP: \(child.stderrSoFar)")
            return try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8), options: .fragmentsAllowed) as? String)
        }

        func result() async throws -> [String: Any] {
            let line = try #require(
                await child.readLine(within: Self.lineBound), "aiortc printed no result: \(child.stderrSoFar)")
            let ended = try await child.result()
            #expect(ended.status == 0, "aiortc_peer.py: \(ended.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    static func check(
        _ session: MediaSession<ContinuousClock>, log: DTLSSessionTests.EventLog, sink: RecordingSink,
        result: [String: Any], ourRole: DTLSRole
    ) async {
        let stats = await session.statistics
        await session.stop()
        let heard = DTLSSessionTests.toneFrames(sink.samples)
        #expect(
            log.contains { if case .dtlsConnected(_, let r) = $0 { r == ourRole } else { false } },
            "\(log.events.withLock { $0 })")
        #expect(result["ice"] as? String == "completed", "\(result)")
        #expect(result["dtls"] as? String == "connected", "\(result)")
        #expect((result["tone_frames"] as? Int ?? 0) >= 25, "aiortc heard \(result)")
        #expect(heard >= 25, "we heard \(heard) tone frames; \(stats)")
        #expect(stats.srtpAuthenticationFailures == 0)
    }

    @Test(.enabled(if: python != nil, skipReason), .timeLimit(.minutes(1)))
    func weOfferAiortcAnswers() async throws {
        let a = try MediaSession(
            configuration: DTLSSessionTests.configuration(role: .controlling), clock: ContinuousClock(),
            ids: SeededIdentifierSource(seed: 21))
        let log = DTLSSessionTests.EventLog(a)
        let sink = RecordingSink()
        await a.start(
            remote: nil, source: ToneGenerator(frequencies: [1000], amplitude: 10000, duration: .seconds(10)),
            sink: sink)
        let local = try #require(await a.webRTCLocalParameters())
        let caps = AudioCapabilities.webRTC(address: "127.0.0.1", port: a.localAddress.port, local: local)
        let offer = OfferAnswer.makeWebRTCOffer(
            caps, origin: SDPOrigin(sessionID: "7", sessionVersion: 1, address: "127.0.0.1"))
        let peer = try Peer(mode: "answer", seconds: 4)
        try peer.send(sdp: offer.serialized())
        let answerText = try await peer.receiveSDP()
        #expect(answerText.contains("UDP/TLS/RTP/SAVPF") && answerText.contains("a=setup:active"))
        try await a.apply(
            try OfferAnswer.processAnswer(try SessionDescription(parsing: answerText), offer: offer, capabilities: caps)
        )
        await Self.check(a, log: log, sink: sink, result: try await peer.result(), ourRole: .server)
    }

    @Test(.enabled(if: python != nil, skipReason), .timeLimit(.minutes(1)))
    func aiortcOffersWeAnswer() async throws {
        let b = try MediaSession(
            configuration: DTLSSessionTests.configuration(role: .controlled), clock: ContinuousClock(),
            ids: SeededIdentifierSource(seed: 22))
        let log = DTLSSessionTests.EventLog(b)
        let sink = RecordingSink()
        await b.start(
            remote: nil, source: ToneGenerator(frequencies: [1000], amplitude: 10000, duration: .seconds(10)),
            sink: sink)
        let peer = try Peer(mode: "offer", seconds: 4)
        let offerText = try await peer.receiveSDP()
        let local = try #require(await b.webRTCLocalParameters())
        let caps = AudioCapabilities.webRTC(address: "127.0.0.1", port: b.localAddress.port, local: local)
        let (answer, audio) = try OfferAnswer.makeWebRTCAnswer(
            to: try SessionDescription(parsing: offerText), capabilities: caps,
            origin: SDPOrigin(sessionID: "8", sessionVersion: 1, address: "127.0.0.1"))
        try await b.apply(audio)
        try peer.send(sdp: answer.serialized())
        await Self.check(b, log: log, sink: sink, result: try await peer.result(), ourRole: .client)
    }
}
