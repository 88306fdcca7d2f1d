#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a tool's input: a file argument, or standard input when the argument is absent or `-`.
///
/// Every read is bounded while it happens (``Limit``): `/dev/zero`, an endless pipe or a huge
/// file stops at the limit with one line naming it, in well under a second and with flat memory.
/// Unreadable or over-limit input is a ``ToolError/Code/unreadableInput`` error (exit 64) with a
/// one-line reason such as `cannot read 'line.json': No such file or directory`.
public enum InputReader {
    /// The documented size limits (docs/tools.md "Input limits"); each names what it bounds.
    public struct Limit: Sendable, Hashable {
        public var bytes: Int
        /// What the input is, for the message (`line file`, `password file`).
        public var what: String

        public init(_ bytes: Int, _ what: String) {
            self.bytes = bytes
            self.what = what
        }

        /// A line JSON object (`--line`, standard input): 64 KiB.
        public static let line = Limit(64 * 1024, "line")
        /// The first line of a password, passphrase or TURN password file: 4 KiB.
        public static let password = Limit(4 * 1024, "password file")
        /// The first line of a token file (a Firebase ID token, a JWT): 16 KiB.
        public static let token = Limit(16 * 1024, "token file")
        /// A key file (`--key-file`): 64 KiB.
        public static let keyFile = Limit(64 * 1024, "key file")
        /// A pushsim scenario file: 1 MiB.
        public static let scenario = Limit(1024 * 1024, "scenario file")
        /// An image to decode (PNG, PGM): 32 MiB.
        public static let image = Limit(32 * 1024 * 1024, "image")
        /// One line of a `--load` file: 64 KiB (the file itself is read line by line).
        public static let loadLine = Limit(64 * 1024, "load file line")
        /// One line of a `--sip-trace-file` (a whole SIP message, JSON-escaped): 2 MiB.
        public static let traceLine = Limit(2 * 1024 * 1024, "trace file line")

        /// `64 KiB`, `1 MiB`, `100 bytes`.
        public var sizeText: String {
            if bytes >= 1024 * 1024, bytes % (1024 * 1024) == 0 { return "\(bytes / (1024 * 1024)) MiB" }
            if bytes >= 1024, bytes % 1024 == 0 { return "\(bytes / 1024) KiB" }
            return "\(bytes) bytes"
        }
    }

    /// Whether `path` means standard input (`nil` or `-`).
    public static func isStandardInput(_ path: String?) -> Bool { path == nil || path == "-" }

    /// Whether standard input is a terminal (then it is not read implicitly for a line).
    public static var standardInputIsTerminal: Bool { isatty(0) == 1 }

    /// `'line.json'` or `standard input`, as messages name an input.
    public static func name(_ path: String?) -> String { isStandardInput(path) ? "standard input" : "'\(path!)'" }

    /// The bytes of `path`, or of standard input when `path` is `nil` or `-`, at most `limit`.
    public static func read(_ path: String?, limit: Limit) throws(ToolError) -> [UInt8] {
        var result: [UInt8] = []
        try withDescriptor(path) { descriptor throws(ToolError) in
            try readChunks(descriptor, name: name(path)) { chunk throws(ToolError) in
                guard result.count + chunk.count <= limit.bytes else { throw tooLarge(path, limit) }
                result += chunk
                return true
            }
        }
        return result
    }

    /// The UTF-8 text of `path` or standard input, at most `limit`; invalid UTF-8 is unreadable.
    public static func readText(_ path: String?, limit: Limit) throws(ToolError) -> String {
        try text(try read(path, limit: limit), path)
    }

    /// The first line of `path` or standard input (a password, passphrase or token file),
    /// without its line end; reading stops at the first newline, and a first line longer than
    /// `limit` is an error.
    public static func firstLine(_ path: String?, limit: Limit) throws(ToolError) -> String {
        var line: [UInt8] = []
        try withDescriptor(path) { descriptor throws(ToolError) in
            try readChunks(descriptor, name: name(path), chunkSize: 4096) { chunk throws(ToolError) in
                let end = chunk.firstIndex { $0 == 0x0A || $0 == 0x0D } ?? chunk.endIndex
                guard line.count + (end - chunk.startIndex) <= limit.bytes else {
                    throw ToolError(
                        .unreadableInput,
                        "the first line of \(name(path)) is longer than the \(limit.sizeText) limit for a \(limit.what)")
                }
                line += chunk[..<end]
                return end == chunk.endIndex
            }
        }
        return try text(line, path)
    }

    /// Calls `body` with each line of `path` or standard input (without the LF; a CR before it
    /// is kept for the caller to trim) and its 1-based number, reading in chunks: memory stays
    /// at one chunk plus one line however large the input. A line longer than `maxLine` or more
    /// than `maxLines` lines is an error naming the limit.
    public static func forEachLine(
        _ path: String?, maxLine: Limit, maxLines: Int,
        _ body: (_ line: ArraySlice<UInt8>, _ number: Int) throws(ToolError) -> Void
    ) throws(ToolError) {
        var pending: [UInt8] = []
        var number = 0
        func emit(_ line: ArraySlice<UInt8>) throws(ToolError) {
            number += 1
            guard number <= maxLines else {
                throw ToolError(.unreadableInput, "\(name(path)) has more than \(maxLines) lines (the limit)")
            }
            try body(line, number)
        }
        try withDescriptor(path) { descriptor throws(ToolError) in
            try readChunks(descriptor, name: name(path)) { chunk throws(ToolError) in
                var start = chunk.startIndex
                while let newline = chunk[start...].firstIndex(of: 0x0A) {
                    if pending.isEmpty {
                        try emit(chunk[start..<newline])
                    } else {
                        pending += chunk[start..<newline]
                        guard pending.count <= maxLine.bytes else { throw longLine(path, number + 1, maxLine) }
                        try emit(pending[...])
                        pending.removeAll(keepingCapacity: true)
                    }
                    start = newline + 1
                }
                pending += chunk[start...]
                guard pending.count <= maxLine.bytes else { throw longLine(path, number + 1, maxLine) }
                return true
            }
        }
        if !pending.isEmpty { try emit(pending[...]) }
    }

    // MARK: Pieces

    private static func withDescriptor(_ path: String?, _ body: (Int32) throws(ToolError) -> Void) throws(ToolError) {
        if isStandardInput(path) { return try body(0) }
        let descriptor = open(path!, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(name(path), errno) }
        defer { close(descriptor) }
        try body(descriptor)
    }

    /// Reads until end of input or until `chunk` returns false (it has what it needs).
    private static func readChunks(
        _ descriptor: Int32, name: String, chunkSize: Int = 65536,
        _ chunk: ([UInt8]) throws(ToolError) -> Bool
    ) throws(ToolError) {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(name, errno)
            }
            guard try chunk(Array(buffer[0..<count])) else { return }
        }
    }

    private static func text(_ bytes: [UInt8], _ path: String?) throws(ToolError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ToolError(.unreadableInput, "cannot read \(name(path)): not UTF-8 text")
        }
        return text
    }

    private static func tooLarge(_ path: String?, _ limit: Limit) -> ToolError {
        ToolError(.unreadableInput, "\(name(path)) is larger than the \(limit.sizeText) limit for a \(limit.what)")
    }

    private static func longLine(_ path: String?, _ number: Int, _ limit: Limit) -> ToolError {
        ToolError(
            .unreadableInput, "\(name(path)):\(number): line longer than the \(limit.sizeText) limit for a \(limit.what)")
    }

    private static func failure(_ name: String, _ code: Int32) -> ToolError {
        ToolError(.unreadableInput, "cannot read \(name): \(String(cString: strerror(code)))")
    }
}
