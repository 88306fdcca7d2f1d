#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a tool's input: a file argument, or standard input when the argument is absent or `-`.
///
/// Unreadable input is a ``ToolError/Code/unreadableInput`` error (exit 64) with a one-line
/// reason such as `cannot read 'line.json': No such file or directory`.
public enum InputReader {
    /// Whether `path` means standard input (`nil` or `-`).
    public static func isStandardInput(_ path: String?) -> Bool { path == nil || path == "-" }

    /// Whether standard input is a terminal (then it is not read implicitly for a line).
    public static var standardInputIsTerminal: Bool { isatty(0) == 1 }

    /// The bytes of `path`, or of standard input when `path` is `nil` or `-`.
    public static func read(_ path: String?) throws(ToolError) -> [UInt8] {
        if isStandardInput(path) { return try readAll(descriptor: 0, name: "standard input") }
        let path = path!
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("'\(path)'", errno) }
        defer { close(descriptor) }
        return try readAll(descriptor: descriptor, name: "'\(path)'")
    }

    /// The UTF-8 text of `path` or standard input; invalid UTF-8 is unreadable input.
    public static func readText(_ path: String?) throws(ToolError) -> String {
        let bytes = try read(path)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let name = isStandardInput(path) ? "standard input" : "'\(path!)'"
            throw ToolError(.unreadableInput, "cannot read \(name): not UTF-8 text")
        }
        return text
    }

    private static func readAll(descriptor: Int32, name: String) throws(ToolError) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return result }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(name, errno)
            }
            result += chunk[0..<count]
        }
    }

    private static func failure(_ name: String, _ code: Int32) -> ToolError {
        ToolError(.unreadableInput, "cannot read \(name): \(String(cString: strerror(code)))")
    }
}
