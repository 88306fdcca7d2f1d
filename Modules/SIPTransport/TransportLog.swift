import Glibc

/// Where transports write their diagnostics (connection failures and why, insecure-TLS
/// warnings). Never receives credentials: messages are not logged here (see ``SIPTrace``).
public struct TransportLog: Sendable {
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    private let sink: @Sendable (Level, String) -> Void

    public init(_ sink: @escaping @Sendable (Level, String) -> Void) { self.sink = sink }

    public func callAsFunction(_ level: Level, _ text: @autoclosure () -> String) { sink(level, text()) }

    /// `transport: warning: …` lines on stderr, at `minimum` level and above.
    public static func standardError(minimum: Level = .info) -> TransportLog {
        TransportLog { level, text in
            guard level >= minimum else { return }
            StandardError.write("transport: \(level): \(text)\n")
        }
    }

    public static let discard = TransportLog { _, _ in }
}

/// Unbuffered writes to file descriptor 2 (no shared `FILE *` across threads).
enum StandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { break }
            offset += n
        }
    }
}

extension String {
    /// A NUL-terminated C character buffer as text.
    init(cChars buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
