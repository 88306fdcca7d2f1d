import LineRunner
import SIPTransport
import ToolSupport

extension RegisterReport {
    /// The text-mode result, one line: `✔ sip:1001@pbx registered over WSS in 24 ms (connect 14,
    /// register 2), expires 300 s`, or `✘ sip:1001@pbx not registered over WSS: <why, and the fix>`.
    func verdict(exit: ExitCode, message: String?) -> String {
        let over = "over \(setup.transport.viaToken)"
        guard exit == .success, let registeredAt else {
            let why = FailureWords.explain(message ?? failure?.description ?? "failed", setup: setup)
            return "✘ \(setup.aor) not registered \(over): \(why)"
        }
        // The wire stamps the JSON `timings_ms` and the monitoring plugin report, in whole ms.
        func ms(_ from: WireTime?, _ to: WireTime?) -> Int? {
            guard let from, let to else { return nil }
            return Int(to.milliseconds(since: from).rounded())
        }
        var phases: [String] = []
        if let connect = ms(start, flowUpAt) { phases.append("connect \(connect)") }
        if let register = ms(wire.current.firstRequest, registeredAt) { phases.append("register \(register)") }
        var line = "✔ \(setup.aor) registered \(over) in \(ms(start, registeredAt) ?? 0) ms"
        if !phases.isEmpty { line += " (" + phases.joined(separator: ", ") + ")" }
        line += ", expires \(result?.grantedExpires ?? 0) s"
        if let asked = expiresSent, let granted = result?.grantedExpires, granted != asked {
            line += " (asked \(asked) s" + (minExpires.map { "; 423 Min-Expires \($0) s" } ?? "") + ")"
        }
        if challenges > 0, let algorithm = result?.authAlgorithm { line += ", digest \(algorithm)" }
        if qualified { line += ", qualify answered" }
        if unregistered == false { line += "; the binding could not be removed" }
        return line
    }
}
