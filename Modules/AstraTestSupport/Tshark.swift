import Foundation

/// Wireshark's command-line reader, the independent judge of the pcap files the tools write
/// (Debian's `tshark`, in scripts/debian-packages.txt).
public enum Tshark {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The `-T fields` rows of the packets in `path` matching the display filter `filter`: one
    /// array of `fields` per packet. `decodeAs` adds `-d` rules (`tcp.port==443,sip`).
    public static func fields(_ path: String, filter: String, _ fields: [String], decodeAs: [String] = []) async throws
        -> [[String]]
    {
        var arguments = ["-n", "-r", path, "-Y", filter, "-T", "fields", "-E", "separator=\t"]
        for rule in decodeAs { arguments += ["-d", rule] }
        for field in fields { arguments += ["-e", field] }
        let result = try await ChildProcess.run(
            command: "tshark", arguments, environment: ["HOME": NSTemporaryDirectory()])
        guard result.status == 0 else {
            throw Failure(description: "tshark \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.text.split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }
}
