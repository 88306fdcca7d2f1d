import AstraJSON
import Glibc
import SIPCore

/// Reads the project's vectors and golden files for seed corpora. Paths are relative to the
/// repository root (scripts/fuzz.sh runs from there); a missing file is a clear error, never an
/// empty corpus that would go unnoticed.
enum SeedFiles {
    /// The bytes of one file.
    static func read(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { fail("cannot open seed file \(path)") }
        defer { fclose(file) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return out
    }

    /// The regular files in `folder` (not recursive) whose names end with `suffix`, sorted.
    static func paths(in folder: String, suffix: String = "") -> [String] {
        guard let dir = opendir(folder) else { fail("cannot open seed folder \(folder)") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix("."), name.hasSuffix(suffix) else { continue }
            var info = stat()
            guard stat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            names.append(name)
        }
        return names.sorted().map { folder + "/" + $0 }
    }

    /// Every file of `folder` ending with `suffix`, read.
    static func all(in folder: String, suffix: String = "") -> [[UInt8]] { paths(in: folder, suffix: suffix).map(read) }

    /// A JSON vector file, parsed with the project's one JSON reader.
    static func json(_ path: String) -> JSONValue {
        do { return try JSONValue.parse(read(path)) } catch { fail("seed file \(path) is not JSON: \(error)") }
    }

    /// Every string found anywhere in `value` (vector files keep hex and text at varying depths).
    static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let s): [s]
        case .array(let a): a.flatMap(strings(in:))
        case .object(let o): o.flatMap { strings(in: $0.1) }
        default: []
        }
    }

    /// `hex` as bytes (spaces allowed), or nil when it is not hex.
    static func hex(_ text: String) -> [UInt8]? {
        let digits = text.utf8.filter { $0 != 32 && $0 != 10 && $0 != 58 }
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = digits.startIndex
        while i < digits.endIndex {
            guard let h = nibble(digits[i]), let l = nibble(digits[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }

    /// The SIP messages of the project's vectors (RFC 4475, RFC 5118 wire form, RFC 7118) and
    /// the fuzz regressions.
    static func sipMessages() -> [[UInt8]] {
        all(in: "Tests/SIPCoreTests/Vectors", suffix: ".dat")
            + all(in: "Tests/SIPCoreTests/Vectors/derived/rfc5118_wire", suffix: ".dat")
            + all(in: "Tests/SIPCoreTests/Vectors/fuzz", suffix: ".dat")
    }

    /// The bodies of the SIP vectors that carry SDP.
    static func sdpBodies() -> [[UInt8]] {
        sipMessages().compactMap { message in
            guard let start = find([13, 10, 13, 10], in: message) ?? find([10, 10], in: message) else { return nil }
            let body = Array(message[(start + (message[start] == 13 ? 4 : 2))...])
            return body.starts(with: Array("v=0".utf8)) ? body : nil
        }
    }

    /// The first index of `needle` in `haystack`.
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count, !needle.isEmpty else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        }
        return nil
    }

    static func fail(_ message: String) -> Never {
        printError("astra-fuzz: \(message)")
        exit(66)
    }
}

/// One diagnostic line on stderr (`write(2)`: the C `stderr` global is not concurrency-safe).
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        offset += n
    }
}
