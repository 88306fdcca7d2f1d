import AstraJSON

/// The JSON objects astra-torture writes: one `message` event per torture message and one
/// `summary` per transport (field names documented in docs/man/astra-torture.md).
public enum TortureReport {
    /// The fields of a `message` event.
    public static func fields(_ result: TortureResult, transport: String, standing: TortureBaseline.Standing)
        -> JSONObject
    {
        var object: JSONObject = [
            "name": .string(result.torture.name),
            "rfc": .string(result.torture.reference),
            "title": .string(result.torture.title),
            "transport": .string(transport),
            "bytes": .int(result.size),
            "changes": .array(
                result.changes.map {
                    .object(["field": .string($0.edit.rawValue), "from": .string($0.from), "to": .string($0.to)])
                }),
            "expected": .string(result.verdict.expected),
            "observed": .string(result.verdict.observed),
            "answers": .array(
                result.observation.answers.map { answer in
                    var a: JSONObject = ["status": .int(answer.status), "reason": .string(answer.reason)]
                    if let unsupported = answer.unsupported { a.append("unsupported", .string(unsupported)) }
                    return .object(a)
                }),
            "closed": .bool(result.observation.closed),
            "verdict": .string(result.verdict.matches ? "match" : "mismatch"),
            "standing": .string(standing.rawValue),
            "alive_after": .bool(result.aliveAfter),
        ]
        if !result.verdict.matches { object.append("reason", .string(result.verdict.reason)) }
        return object
    }

    /// The text line for a `message` event: `wsinv  RFC 4475 §3.1.1.1  match  407`.
    public static func text(_ result: TortureResult, transport: String, standing: TortureBaseline.Standing) -> String {
        let changes = result.changes.map { "\($0.edit.rawValue) \($0.from) → \($0.to)" }.joined(separator: ", ")
        var line =
            "\(transport) \(result.torture.name) (\(result.torture.reference)): \(standing.rawValue), "
            + "got \(result.verdict.observed), expected \(result.verdict.expected)"
        if !result.verdict.reason.isEmpty { line += " (\(result.verdict.reason))" }
        if !changes.isEmpty { line += " [\(changes)]" }
        if !result.aliveAfter { line += " — no answer to OPTIONS after it" }
        return line
    }

    /// Counts for a `summary` event.
    public struct Tally: Sendable, Hashable {
        public var sent = 0, matched = 0, known = 0, regressions = 0

        public init() {}

        public mutating func add(_ standing: TortureBaseline.Standing) {
            sent += 1
            switch standing {
            case .match: matched += 1
            case .known: known += 1
            case .regression: regressions += 1
            }
        }
    }

    /// The fields of a `summary` event.
    public static func summary(transport: String, total: Int, tally: Tally, end: TortureEnd) -> JSONObject {
        var object: JSONObject = [
            "transport": .string(transport), "messages": .int(total), "sent": .int(tally.sent),
            "matched": .int(tally.matched), "known": .int(tally.known), "regressions": .int(tally.regressions),
            "server_alive": .bool(end == .completed),
        ]
        if case .stopped(let after, let reason) = end {
            object.append("stopped_after", after.map(JSONValue.string) ?? .null)
            object.append("stop_reason", .string(reason))
        }
        return object
    }
}
