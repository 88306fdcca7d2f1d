import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes typed on a terminal, as a stream (``RawTerminal`` delivers them one key at a
/// time). Read with plain `read(2)` when the descriptor is readable — never made non-blocking:
/// the terminal's open file is shared with the shell, which must not find it non-blocking
/// afterwards. The stream ends at end of file (the terminal went away).
public enum TerminalKeys {
    public static func stream(_ descriptor: Int32 = 0) -> AsyncStream<UInt8> {
        let (stream, continuation) = AsyncStream.makeStream(of: UInt8.self)
        let source = DispatchSource.makeReadSource(
            fileDescriptor: descriptor, queue: DispatchQueue(label: "astra.terminal.keys"))
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, min($0.count, max(1, Int(source.data)))) }
            guard n > 0 else {
                if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    continuation.finish()
                    source.cancel()
                }
                return
            }
            for byte in buffer[0..<n] { continuation.yield(byte) }
        }
        let box = SourceBox(source)
        continuation.onTermination = { _ in box.source.cancel() }
        source.resume()
        return stream
    }

    /// The read source, to cancel when the stream's reader goes away (cancel is thread-safe).
    private final class SourceBox: @unchecked Sendable {
        let source: any DispatchSourceRead
        init(_ source: any DispatchSourceRead) { self.source = source }
    }
}
