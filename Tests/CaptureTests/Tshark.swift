import AstraTestSupport
import Foundation
import Testing

/// Wireshark's command-line reader as the independent judge of our pcap and HEP bytes
/// (Debian's `tshark`, listed in scripts/debian-packages.txt).
enum Tshark {
    /// The `-T fields` rows of the packets matching `filter` (one array of `fields` per packet).
    static func fields(_ path: String, filter: String, _ fields: [String], decodeAs: [String] = []) async throws
        -> [[String]]
    {
        var arguments = ["-n", "-r", path, "-Y", filter, "-T", "fields", "-E", "separator=\t"]
        for rule in decodeAs { arguments += ["-d", rule] }
        for field in fields { arguments += ["-e", field] }
        let result = try await ChildProcess.run(command: "tshark", arguments, environment: ["HOME": NSTemporaryDirectory()])
        try #require(result.status == 0, "tshark \(arguments.joined(separator: " ")): \(result.stderr)")
        return result.text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }
}
