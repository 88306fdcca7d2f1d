import AstraTestSupport
import Foundation
import Testing

/// The wake table in docs/wake-gateway.md ("The proxy machine") is the machine's contract: every
/// row (W1, C1, R1, T1, G1–G5, …) must have a virtual-time test whose name starts with the row's
/// id (`func w1…`), so a row added to the docs without a test, or a test renamed away from its
/// row, fails here.
@Suite struct WakeTableCoverageTests {

    /// The row ids of the wake table, ranges ("G1–G5") expanded.
    static func rowIDs(_ doc: String) -> [String] {
        guard let start = doc.range(of: "| Row | Event sequence |") else { return [] }
        var ids: [String] = []
        for line in doc[start.upperBound...].split(separator: "\n").dropFirst(2) {  // the header's rest, the rule
            guard line.hasPrefix("| ") else { break }
            let cell = line.dropFirst(2).prefix { $0 != " " && $0 != "|" }
            let bounds = cell.split(separator: "–")
            guard let first = bounds.first, let letter = first.first, let low = Int(first.dropFirst()) else { continue }
            let high = bounds.count == 2 ? Int(bounds[1].dropFirst()) ?? low : low
            ids += (low...max(low, high)).map { "\(letter)\($0)" }
        }
        return ids
    }

    /// `@Test func w1Live…` names row W1 (and not W10: the id ends where a capital starts).
    static func hasTest(named id: String, in source: String) -> Bool {
        let needle = "@Test func \(id.lowercased())"
        var rest = source[...]
        while let found = rest.range(of: needle) {
            if let next = rest[found.upperBound...].first, next.isUppercase { return true }
            rest = rest[found.upperBound...]
        }
        return false
    }

    @Test func everyRowHasAVirtualTimeTest() throws {
        let doc = try String(contentsOf: RepositoryRoot.appending("docs/wake-gateway.md"), encoding: .utf8)
        let ids = Self.rowIDs(doc)
        #expect(ids.count >= 30, "the wake table was not found or lost rows")
        let tests = try ["HeldCallMachineTests.swift", "HeldCallCancelTests.swift"].map {
            try String(contentsOf: RepositoryRoot.appending("Tests/WakeGatewayTests/\($0)"), encoding: .utf8)
        }.joined()
        for id in ids {
            #expect(Self.hasTest(named: id, in: tests), "wake table row \(id) has no test named after it")
        }
    }
}
