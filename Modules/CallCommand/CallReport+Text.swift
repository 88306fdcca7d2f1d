import CallSession
import Media
import ToolSupport

/// Text mode for people at a terminal: each event as a short sentence (JSON mode is
/// unchanged), and at the end a call summary block.
extension CallReport {
    static func text(_ event: CallEvent) -> String? {
        switch event {
        case .state: return nil
        case .trying: return "trying"
        case .ringing: return "ringing"
        case .earlyMedia: return "early media"
        case .answered(let codec, let srtp, let te, let media):
            var parts = [codec, media == .webRTC ? "WebRTC (ICE + DTLS-SRTP)" : (srtp ? "SRTP (SDES)" : "RTP")]
            if te { parts.append("DTMF as RFC 4733 events") }
            return "answered: " + parts.joined(separator: ", ")
        case .iceConnected(let local, let remote, let since): return "ICE connected \(local) ⇄ \(remote)" + after(since)
        case .iceGathered(let host, let srflx, let relay, let waited):
            return "ICE candidates: \(host) host, \(srflx) server-reflexive, \(relay) relayed (\(Int(waited)) ms)"
        case .relayFailed(let reason): return "no TURN relay: \(reason)"
        case .iceRestarted(let byPeer, let local, let remote, _):
            return "ICE restarted by \(byPeer ? "the other side" : "us"): \(local) ⇄ \(remote)"
        case .dtlsConnected(let profile, let role, let since): return "DTLS-SRTP up (\(profile), \(role))" + after(since)
        case .firstRTP(let since): return "first RTP" + after(since)
        case .dtmf(let digit, let via): return "DTMF \(digit) received (\(via))"
        case .held(let byPeer, let direction): return byPeer ? "held by the other side (\(direction.rawValue))" : "on hold"
        case .resumed(let byPeer): return byPeer ? "resumed by the other side" : "resumed"
        case .sourceEnded: return "the audio source ended"
        case .ended(let reason, _): return "call ended: \(reason.description)"
        }
    }

    private static func after(_ milliseconds: Double?) -> String {
        milliseconds.map { " (\(Int($0.rounded())) ms after the answer)" } ?? ""
    }

    /// What the call came to, in words.
    static func outcome(_ reason: CallEndReason) -> String {
        switch reason {
        case .localHangUp: "completed: we hung up"
        case .remoteHangUp: "completed: the other side hung up"
        case .busy(let status): "failed: the callee is busy (\(status))"
        case .declined(let status): "failed: the callee declined (\(status))"
        case .cancelled: "cancelled before the answer (487)"
        case .noAnswer: "not answered in time (raise --timeout?)"
        case .rtpTimeout: "ended: no audio arrived for --rtp-timeout seconds (a NAT, a firewall or a dead peer?)"
        case .timeout: "ended: the other side stopped answering SIP (timeout)"
        case .networkError: "ended: the network connection failed"
        case .failed(404, let text): "failed: the callee is unknown or not registered (404 \(text))"
        case .failed(480, let text): "failed: the callee is not reachable now (480 \(text))"
        case .failed(let status, let text): "failed: \(status) \(text)"
        case .mediaFailed(let text): "media could not be secured: \(text)"
        }
    }

    /// The summary block after `ended`.
    static func summary(_ reason: CallEndReason, _ s: CallStatistics, media: String?) -> String {
        func n(_ value: Double, _ digits: Int = 1) -> String {
            let scale = digits == 2 ? 100.0 : 10.0
            return String((value * scale).rounded() / scale)
        }
        var rows: [(String, String)] = [("result", outcome(reason))]
        guard let media else { return "Call summary\n  result    \(outcome(reason))\n" }  // never answered
        rows.append(("media", media))
        var timing = "\(n(s.durationSeconds, 2)) s talking"
        if let setup = s.setupMilliseconds { timing += ", set up in \(Int(setup.rounded())) ms" }
        if let first = s.firstRTPMilliseconds { timing += ", first RTP \(Int(first.rounded())) ms after the INVITE" }
        rows.append(("duration", timing))
        let loss: String = n(s.lossPercent)
        let packets: String = "sent \(s.packetsSent) · received \(s.packetsReceived) · lost \(s.packetsLost) (\(loss) %)"
        rows.append(("packets", packets))
        let jitter: String = n(s.jitterMilliseconds)
        rows.append(("jitter", jitter + " ms"))
        var mos = "none: no audio received"
        if let value = s.mos, let r = s.rFactor { mos = n(value, 2) + " (R-factor " + n(r) + ")" }
        rows.append(("MOS", mos))
        var rtt = "not measured (no RTCP report from the other side)"
        if let value = s.roundTripMilliseconds { rtt = n(value) + " ms" }
        rows.append(("RTT", rtt))
        var block = "Call summary\n"
        for (label, value) in rows {
            let pad = String(repeating: " ", count: max(1, 10 - label.count))
            block += "  " + label + pad + value + "\n"
        }
        return block
    }
}
