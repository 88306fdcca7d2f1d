import AstraJSON

/// What a known server answered before, per transport and message: a run that differs from
/// the oracle but answers as the baseline recorded is no regression (the server's known
/// deviations), one that differs from both is.
///
/// File (JSON, docs/man/astra-torture.md): `{"v":1,"server":"…","transports":{"udp":{"wsinv":"407",…},…}}`,
/// each value a ``TortureObservation/outcome``.
public struct TortureBaseline: Sendable, Hashable {
    public var server: String
    /// transport (`udp`) → message name → outcome.
    public var outcomes: [String: [String: String]]

    public init(server: String = "", outcomes: [String: [String: String]] = [:]) {
        self.server = server
        self.outcomes = outcomes
    }

    /// How one result compares with the oracle and the baseline.
    public enum Standing: String, Sendable, Hashable {
        /// The oracle's answer.
        case match
        /// Not the oracle's, but the baseline's: a known deviation.
        case known
        /// Neither: the run fails.
        case regression
    }

    /// The standing of `result` over `transport`.
    public func standing(_ result: TortureResult, transport: String) -> Standing {
        if result.verdict.matches { return .match }
        return outcomes[transport]?[result.torture.name] == result.observation.outcome ? .known : .regression
    }

    /// Parses a baseline file; the error says what is wrong in one line.
    public init(parsing bytes: [UInt8]) throws(TortureBaselineError) {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw TortureBaselineError("not JSON: \(error)") }
        guard value["v"]?.intValue == 1 else { throw TortureBaselineError("\"v\" must be 1") }
        guard let transports = value["transports"]?.objectValue else {
            throw TortureBaselineError("no \"transports\" object")
        }
        var outcomes: [String: [String: String]] = [:]
        for (transport, table) in transports.entries {
            guard let table = table.objectValue else { throw TortureBaselineError("\"\(transport)\" is not an object") }
            var row: [String: String] = [:]
            for (name, outcome) in table.entries {
                guard let outcome = outcome.stringValue else {
                    throw TortureBaselineError("\(transport).\(name) is not a string")
                }
                row[name] = outcome
            }
            outcomes[transport] = row
        }
        self.init(server: value["server"]?.stringValue ?? "", outcomes: outcomes)
    }

    /// Records `results` over `transport` (replacing what it had for it).
    public mutating func record(_ results: [TortureResult], transport: String) {
        var row: [String: String] = [:]
        for result in results { row[result.torture.name] = result.observation.outcome }
        outcomes[transport] = row
    }

    /// The file text: transports in TOOLS.md order, messages in catalog order, one per line
    /// (diffs of a baseline read message by message).
    public var text: String {
        var out = "{\n  \"v\": 1,\n  \"server\": \(JSONString.quoted(server)),\n  \"transports\": {"
        let order = ["udp", "tcp", "tls", "ws", "wss"]
        let transports = outcomes.keys.sorted {
            (order.firstIndex(of: $0) ?? 9, $0) < (order.firstIndex(of: $1) ?? 9, $1)
        }
        for (t, transport) in transports.enumerated() {
            out += (t == 0 ? "" : ",") + "\n    \(JSONString.quoted(transport)): {"
            let row = outcomes[transport] ?? [:]
            let names =
                TortureCatalog.all.map(\.name).filter { row[$0] != nil }
                + row.keys.sorted().filter {
                    TortureCatalog.named($0) == nil
                }
            for (n, name) in names.enumerated() {
                out += (n == 0 ? "" : ",") + "\n      \(JSONString.quoted(name)): \(JSONString.quoted(row[name] ?? ""))"
            }
            out += "\n    }"
        }
        return out + "\n  }\n}\n"
    }
}

/// A baseline file that cannot be used (exit 64).
public struct TortureBaselineError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
