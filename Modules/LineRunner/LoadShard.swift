import ToolSupport

/// `--shard I/N`: this process takes every N-th line of the load file starting at line I
/// (0-based, blank lines not counted), so a fleet larger than one machine runs as N processes
/// under a scheduler — a Kubernetes Job's completion index, GNU parallel's `{%}` — and
/// `--merge` combines their JSON Lines (docs/tools.md). astra-register's load and astra-call's
/// load both shard this way.
package struct LoadShard: Sendable, Hashable, CustomStringConvertible {
    package let index: Int
    package let count: Int

    /// Shards per run at most (a line file holds at most 100,000 lines).
    package static let maxCount = 10_000

    package init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `I/N` with 0 ≤ I < N ≤ 10,000.
    package init(parsing text: String) throws(ToolError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), parts[0].allSatisfy(\.isASCII),
              parts[1].allSatisfy(\.isASCII)
        else {
            throw ToolError(.usage, "option --shard: '\(text.prefix(40))' is not I/N (e.g. 0/4: the first of 4 shards)")
        }
        guard (1...Self.maxCount).contains(n), (0..<n).contains(i) else {
            throw ToolError(
                .usage, "option --shard: \(i)/\(n) is out of range (0 ≤ I < N ≤ \(Self.maxCount); I counts from 0)")
        }
        self.init(index: i, count: n)
    }

    /// Whether the `position`-th non-blank line (0-based) belongs to this shard.
    package func takes(_ position: Int) -> Bool { position % count == index }

    package var description: String { "\(index)/\(count)" }
}
