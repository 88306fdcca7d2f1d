import AstraJSON
import CallSession

/// The figures of a call as astra-call reports them, one definition for the one-call run
/// (`ended`, `stats`) and the load run (`call_result`): the statistics object, the rounding to
/// the hundredth, milliseconds of a `Duration`, and the media address a call offers.
package enum CallFigures {
    /// The `stats` object of `ended` and `call_result` (docs/man/astra-call.md).
    package static func json(_ s: CallStatistics) -> JSONObject {
        var object: JSONObject = [
            "packets_sent": .int(s.packetsSent), "packets_received": .int(s.packetsReceived),
            "packets_lost": .int(Int(s.packetsLost)), "loss_percent": .double(rounded(s.lossPercent)),
            "jitter_ms": .double(rounded(s.jitterMilliseconds)),
            // No audio received: no quality estimate (null, not a MOS of 1 beside an R of 93).
            "mos": s.mos.map { .double(rounded($0)) } ?? .null,
            "r_factor": s.rFactor.map { .double(rounded($0)) } ?? .null,
            "duration_s": .double(rounded(s.durationSeconds)),
            "rtcp_sent": .int(s.rtcpSent), "rtcp_received": .int(s.rtcpReceived),
        ]
        if let rtt = s.roundTripMilliseconds { object.entries.append((key: "rtt_ms", value: .double(rounded(rtt)))) }
        if let setup = s.setupMilliseconds { object.entries.append((key: "setup_ms", value: .double(rounded(setup)))) }
        if let first = s.firstRTPMilliseconds {
            object.entries.append((key: "first_rtp_ms", value: .double(rounded(first))))
        }
        return object
    }

    package static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    package static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    /// An IPv4 literal for SDP and the RTP socket: the signalling socket's local address (the
    /// interface that reaches the server, also under WS/WSS whose Contact host is `.invalid`),
    /// else loopback. `--media-address` overrides it.
    package static func mediaHost(local: String?) -> String {
        guard let host = local else { return "127.0.0.1" }
        let parts = host.split(separator: ".")
        if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }), host != "0.0.0.0" { return host }
        return "127.0.0.1"
    }
}
