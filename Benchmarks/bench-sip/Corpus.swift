#if canImport(Glibc)
import Glibc
#endif

/// The parse corpus: every message of the SIPCore test resources, read at run time so the bench
/// and the tests share one set — the RFC 4475 / 5118 / 7118 vectors (`*.dat`, the RFC 5118 wire
/// forms in `derived/`) and the messages captured from real peers in the redaction corpus
/// (`redaction/*.trace`: astra tools, sipsak and Kamailio, one `----- message` block each).
/// Messages that either parser rejects are left out of the comparison by the caller.
enum Corpus {
    static let defaultDirectory = "Tests/SIPCoreTests/Vectors"

    static func load(_ directory: String) -> [(name: String, bytes: [UInt8])] {
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

    /// Splits a trace at its `----- message\n` marker lines; each message keeps its own bytes.
    static func traceMessages(_ bytes: [UInt8]) -> [[UInt8]] {
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
        var out = [[UInt8]]()
        for (k, start) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1] : bytes.count
            out.append(Array(bytes[(start + marker.count)..<end]))
        }
        return out
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
        guard let file = fopen(path, "rb") else { return nil }
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
