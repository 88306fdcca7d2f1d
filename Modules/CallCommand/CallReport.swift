import AstraJSON
import CallLoad
import CallSession
import LineRunner
import Media
import SIPCore
import Synchronization
import ToolSupport

/// The JSON Lines contract of astra-call (docs/man/astra-call.md): one event per line, each
/// with `"event"` and `"t"`; `ended` carries the reason, the SIP status and the statistics.
final class CallReport: Sendable {
    let output: EventWriter
    /// The answer's media, for the text-mode summary (set once, on the loop's task).
    private let answeredMedia = Mutex<String?>(nil)

    init(output: EventWriter) { self.output = output }

    func registered(setup: LineSetup, expires: Int) {
        output.emit(
            "registered",
            [
                "aor": .string(setup.aor.description), "transport": .string(setup.transport.rawValue),
                "expires": .int(expires),
            ], text: "registered \(setup.aor) over \(setup.transport.viaToken) (expires \(expires) s)")
    }

    func calling(target: SIPURI, callID: String) {
        output.emit(
            "calling", ["target": .string(target.description), "call_id": .string(callID)], text: "calling \(target)")
    }

    func waiting() { output.emit("waiting", [:], text: "waiting for a call") }

    /// `--timeout` ran out while waiting for `waitingFor` (`registration`, `answer`).
    func timeout(waitingFor: String, afterMilliseconds: Double) {
        output.emit(
            "timeout", ["waiting_for": .string(waitingFor), "after_ms": .double(CallFigures.rounded(afterMilliseconds))],
            text: "gave up waiting for the \(waitingFor) after \(Int(afterMilliseconds.rounded())) ms (--timeout)")
    }

    func incoming(_ invite: SIPRequest, callID: String) {
        let from = invite.headers[.from] ?? ""
        output.emit("incoming", ["from": .string(from), "call_id": .string(callID)], text: "incoming call from \(from)")
    }

    func dtmfSent(_ digits: [DTMFDigit]) {
        let text = digits.map(\.description).joined()
        output.emit("dtmf_sent", ["digits": .string(text)], text: "DTMF \(text) sent")
    }

    /// The `s` key: the statistics so far, as `ended` will report them.
    func statistics(_ stats: CallStatistics) {
        output.emit(
            "stats", CallFigures.json(stats),
            text: "so far: sent \(stats.packetsSent) · received \(stats.packetsReceived) · lost \(stats.packetsLost) · "
                + "jitter \((stats.jitterMilliseconds * 10).rounded() / 10) ms · MOS "
                + (stats.mos.map { String(($0 * 100).rounded() / 100) } ?? "none (no audio)"))
    }

    func toneCheck(frequency: Double, heard: Double, tone: Double, ok: Bool) {
        output.emit(
            "tone_check",
            [
                "hz": .double(frequency), "heard_s": .double(CallFigures.rounded(heard)),
                "tone_s": .double(CallFigures.rounded(tone)), "ok": .bool(ok),
            ])
    }

    func note(_ event: CallEvent) {
        if case .answered(let codec, let srtp, let te, let media) = event {
            var text = "\(codec) over " + (media == .webRTC ? "WebRTC (ICE + DTLS-SRTP)" : (srtp ? "SRTP (SDES)" : "RTP"))
            if te { text += ", DTMF as RFC 4733 events" }
            answeredMedia.withLock { $0 = text }
        }
        guard let (name, fields) = self.event(event) else { return }
        output.emit(name, fields, text: Self.text(event))
        if output.format == .text, case .ended(let reason, let stats) = event {
            output.write(Self.summary(reason, stats, media: answeredMedia.withLock { $0 }))
        }
    }

    /// The JSON event of a call event (nil: not reported).
    private func event(_ event: CallEvent) -> (String, JSONObject)? {
        switch event {
        case .state: return nil
        case .trying: return ("trying", [:])
        case .ringing: return ("ringing", [:])
        case .earlyMedia: return ("early_media", [:])
        case .answered(let codec, let srtp, let te, let media):
            return (
                "answered",
                [
                    "codec": .string(codec), "srtp": .bool(srtp), "telephone_event": .bool(te),
                    "media": .string(media.rawValue),
                ])
        case .iceConnected(let local, let remote, let since):
            return ("ice_connected", Self.since(since, ["local": .string(local), "remote": .string(remote)]))
        case .iceGathered(let host, let srflx, let relay, let waited):
            return (
                "ice_gathered",
                [
                    "host": .int(host), "srflx": .int(srflx), "relay": .int(relay),
                    "waited_ms": .double(CallFigures.rounded(waited)),
                ])
        case .relayFailed(let reason):
            return ("turn_failed", ["reason": .string(reason)])
        case .iceRestarted(let byPeer, let local, let remote, let ms):
            return (
                "ice_restarted",
                [
                    "by_peer": .bool(byPeer), "local": .string(local), "remote": .string(remote),
                    "ms": .double(CallFigures.rounded(ms)),
                ])
        case .dtlsConnected(let profile, let role, let since):
            return ("dtls_connected", Self.since(since, ["role": .string(role), "srtp_profile": .string(profile)]))
        case .firstRTP(let since): return ("first_rtp", Self.since(since, [:]))
        case .dtmf(let digit, let via): return ("dtmf", ["digit": .string(digit.description), "via": .string(via)])
        case .held(let byPeer, let direction):
            return ("held", ["by_peer": .bool(byPeer), "direction": .string(direction.rawValue)])
        case .resumed(let byPeer): return ("resumed", ["by_peer": .bool(byPeer)])
        case .sourceEnded: return ("source_ended", [:])
        case .ended(let reason, let stats):
            var fields: JSONObject = ["reason": .string(reason.name), "description": .string(reason.description)]
            if let status = reason.status { fields.entries.append((key: "status", value: .int(status))) }
            fields.entries.append((key: "stats", value: .object(CallFigures.json(stats))))
            return ("ended", fields)
        }
    }

    /// Adds `since_answer_ms` (milliseconds from the answer sent or received) when known.
    static func since(_ milliseconds: Double?, _ fields: JSONObject) -> JSONObject {
        var fields = fields
        if let milliseconds { fields.entries.append((key: "since_answer_ms", value: .double(CallFigures.rounded(milliseconds)))) }
        return fields
    }

}
