/// JUnit XML for CI dashboards (`--junit FILE`): one `<testsuite>` per transport, one
/// `<testcase>` per message, named by message and classed by RFC section; a regression is a
/// `<failure>`, a known deviation a passing case with its outcome in `<system-out>`, a message
/// never sent (the server stopped) an `<error>`.
public enum TortureJUnit {
    public struct Suite: Sendable {
        public var transport: String
        public var results: [(TortureResult, TortureBaseline.Standing)]
        /// Messages not sent because the server stopped answering.
        public var unsent: [TortureCase]
        public var end: TortureEnd

        public init(
            transport: String, results: [(TortureResult, TortureBaseline.Standing)], unsent: [TortureCase],
            end: TortureEnd
        ) {
            self.transport = transport
            self.results = results
            self.unsent = unsent
            self.end = end
        }
    }

    public static func render(_ suites: [Suite]) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"astra-torture\">\n"
        for suite in suites {
            let failures = suite.results.filter { $0.1 == .regression }.count
            let total = suite.results.count + suite.unsent.count
            out +=
                "  <testsuite name=\"\(escape(suite.transport))\" tests=\"\(total)\" failures=\"\(failures)\" "
                + "errors=\"\(suite.unsent.count)\">\n"
            for (result, standing) in suite.results {
                out +=
                    "    <testcase name=\"\(escape(result.torture.name))\" "
                    + "classname=\"\(escape(result.torture.reference))\">"
                let detail = "got \(result.verdict.observed), expected \(result.verdict.expected)"
                switch standing {
                case .match:
                    out += "</testcase>\n"
                case .known:
                    out += "<system-out>known deviation: \(escape(detail))</system-out></testcase>\n"
                case .regression:
                    out +=
                        "<failure message=\"\(escape(detail))\">\(escape(result.verdict.reason))</failure></testcase>\n"
                }
            }
            let stopped = suite.end.whereStopped.map { "server stopped answering \($0)" } ?? ""
            for torture in suite.unsent {
                out +=
                    "    <testcase name=\"\(escape(torture.name))\" classname=\"\(escape(torture.reference))\">"
                    + "<error message=\"\(escape(stopped))\"/></testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    /// XML character data and attribute values (`&`, `<`, `>`, `"`, `'`; other control
    /// characters but tab and newline dropped: XML 1.0 cannot carry them).
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default: if scalar.value >= 0x20 { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
