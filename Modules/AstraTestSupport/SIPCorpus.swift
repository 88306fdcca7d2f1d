#if canImport(Glibc)
import Glibc
#endif

/// The SIP message corpus the SIPCore tests and bench-sip share: every message of
/// `Tests/SIPCoreTests/Vectors` — the RFC 4475 / 5118 / 7118 vectors (`*.dat`, with the RFC 5118
/// wire forms in `derived/`) and the messages captured from real peers in the redaction traces
/// (`redaction/*.trace`: astra tools, sipsak and Kamailio, one `----- message` block each).
/// Read at run time, byte for byte; which messages a parser accepts is the caller's question.
public enum SIPCorpus {
    /// The directory relative to the repository root (where `make bench` runs).
    public static let repositoryDirectory = "Tests/SIPCoreTests/Vectors"

    /// Every message under `directory`, named by file (and `#n` for the n-th of a trace), in a
    /// stable order.
    public static func load(_ directory: String) -> [(name: String, bytes: [UInt8])] {
        var out = [(name: String, bytes: [UInt8])]()
        for dir in [directory, directory + "/derived", directory + "/derived/rfc5118_wire"] {
            for file in files(in: dir, suffix: ".dat") {
                if let bytes = read(dir + "/" + file) { out.append((file, bytes)) }
            }
        }
        for file in files(in: directory + "/redaction", suffix: ".trace") {
            guard let bytes = read(directory + "/redaction/" + file) else { continue }
            for (n, message) in traceMessages(bytes).enumerated() { out.append(("\(file)#\(n)", message)) }
        }
        return out
    }

    /// Splits a trace at its `----- message` marker lines; each message keeps its own bytes.
    public static func traceMessages(_ bytes: [UInt8]) -> [[UInt8]] {
        let marker = Array("----- message\n".utf8)
        var starts = [Int]()
        var i = 0
        while i + marker.count <= bytes.count {
            if (i == 0 || bytes[i - 1] == 0x0A) && bytes[i..<i + marker.count].elementsEqual(marker) {
                starts.append(i)
                i += marker.count
            } else {
                i += 1
            }
        }
        return starts.enumerated().map { k, start in
            let end = k + 1 < starts.count ? starts[k + 1] : bytes.count
            return Array(bytes[(start + marker.count)..<end])
        }
    }

    private static func files(in directory: String, suffix: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names = [String]()
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasSuffix(suffix) { names.append(name) }
        }
        return names.sorted()
    }

    private static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rbe") else { return nil }
        defer { fclose(file) }
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }
}
