import SIPCore

/// `astra-qr lines --api URL --firebase-token-file F`: one line JSON per usable WSS line of the
/// signed-in org, ready for `astra-qr encode` or `astra-register`.
///
/// What the platform returns is input from outside, like a code: a line that weakens TLS
/// (`Line.weakenedChecks`) is refused for its user (exit 1) unless `allowInsecure`,
/// and then printed with `"insecure": [fields]`, as `astra-qr decode` does.
package enum LinesCommand {
    public static func run(client: PlatformClient, allowInsecure: Bool = false) async -> QRCommandResult {
        var result = QRCommandResult()
        let lines: [(user: PlatformUser, line: Result<Line, PlatformError>)]
        do {
            lines = try await client.lines()
        } catch {
            result.diagnostics.append("astra-qr: \(Redaction.untrusted(error.detail, limit: 400))")
            result.exit = error.exit
            return result
        }
        if lines.isEmpty { result.diagnostics.append("astra-qr: no user of this org has a WSS line") }
        for (user, outcome) in lines {
            switch outcome {
            case .success(let line):
                do throws(ProvisioningError) {
                    if !allowInsecure { try DecodeCommand.refuseWeakened(line, what: "the platform's line") }
                } catch {
                    result.diagnostics.append("astra-qr: user \(Redaction.untrusted(user.id, limit: 80)): \(error.detail)")
                    result.worsen(to: .invalidLine)
                    continue
                }
                result.stdout += Array(DecodeCommand.printed(line, text: false).utf8) + [0x0A]
            case .failure(let error):
                // Server text (ids, bodies) is stripped of control characters and redacted.
                result.diagnostics.append(
                    "astra-qr: user \(Redaction.untrusted(user.id, limit: 80)): \(Redaction.untrusted(error.detail, limit: 400))")
                result.worsen(to: error.exit)
            }
        }
        return result
    }
}
