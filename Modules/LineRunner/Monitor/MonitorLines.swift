import AstraJSON
import SIPCore
import ToolSupport

/// The lines file of `astra-register --monitor`: JSON Lines, one line object each (docs/line.md)
/// with one field of its own, `name` — the `line` label of every metric of that line, so a
/// dashboard names lines as the operator does. Without `name` the label is `user@domain`.
/// Names are 1…64 bytes of letters, digits and `. _ - : @`, unique in the file (a label value
/// from the file, never a password or free text). Blank lines are skipped.
public struct MonitorLines: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public let name: String
        public let line: Line
    }

    /// Lines in one monitor file: each holds a flow, a registration and its series.
    public static let maxLines = 10_000

    public let entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Reads and checks `path` (`-` is refused: SIGHUP re-reads the file).
    public static func read(_ path: String) throws(ToolError) -> MonitorLines {
        var entries: [Entry] = []
        var seen: [String: Int] = [:]
        try InputReader.forEachLine(path, maxLine: .loadLine, maxLines: maxLines) { row, number throws(ToolError) in
            guard let entry = try entry(row, number: number, path: path) else { return }
            if let first = seen[entry.name] {
                throw ToolError(.usage, "\(path):\(number): line name '\(entry.name)' is already used on line \(first)")
            }
            seen[entry.name] = number
            entries.append(entry)
        }
        guard !entries.isEmpty else { throw ToolError(.usage, "\(path): no lines") }
        return MonitorLines(entries: entries)
    }

    /// One row of the file: nil when blank, else the line and its name.
    public static func entry(_ row: ArraySlice<UInt8>, number: Int, path: String) throws(ToolError) -> Entry? {
        var bytes = row
        while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0D { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else { return nil }
        let line: Line
        let value: JSONValue
        do {
            line = try Line(json: bytes)
            value = try JSONValue.parse(bytes)
        } catch {
            throw ToolError(.usage, "\(path):\(number): \(error)")
        }
        let name: String
        switch value["name"] {
        case nil: name = "\(line.user)@\(line.domain)"
        case .string(let given)?: name = given
        default: throw ToolError(.usage, "\(path):\(number): name must be a string")
        }
        guard isValidName(name) else {
            throw ToolError(
                .usage, "\(path):\(number): name must be 1…64 letters, digits or . _ - : @ (it is a metric label)")
        }
        return Entry(name: name, line: line)
    }

    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F
                || c == 0x2D || c == 0x3A || c == 0x40
        }
    }
}
