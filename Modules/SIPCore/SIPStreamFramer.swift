/// Incremental framing of SIP messages on a byte stream (TCP, TLS): RFC 3261 §7.5, §18.3 and
/// RFC 5626 §4.4.1 CRLF keep-alives.
///
/// A pure value: feed bytes with ``append(_:)``, then pull outputs with ``next()`` until it
/// returns `nil` (more bytes needed):
///
/// ```swift
/// var framer = SIPStreamFramer()
/// framer.append(bytes)
/// while let out = try framer.next() {
///     switch out {
///     case .message(let m): deliver(m)
///     case .keepAlivePing: send([13, 10])          // RFC 5626 §4.4.1: answer CRLFCRLF with CRLF
///     case .keepAlivePong: flowIsAlive()
///     }
/// }
/// ```
///
/// Between messages, `CRLFCRLF` is reported as ``Output/keepAlivePing`` and a lone `CRLF` as
/// ``Output/keepAlivePong``. A `CRLF` that ends the buffered bytes is reported as a pong at once (a
/// client waiting for a pong must not wait for more bytes). What a following `CRLF` means depends
/// on the ``KeepAliveRole``: to a client (which sends pings, RFC 5626 §4.4.1) it is another pong;
/// to a server the two together are a ping split across reads, which must still be answered.
///
/// Errors are final: after ``next()`` throws, it throws the same error again; the transport
/// should close the connection (RFC 3261 §18.3: a stream cannot be resynchronised). Memory is
/// bounded by ``SIPParserLimits/maxHeaderSectionSize`` + ``SIPParserLimits/maxBodySize`` plus
/// one `append` as long as ``next()`` is drained after every ``append(_:)``.
public struct SIPStreamFramer: Sendable {
    /// One unit of stream input.
    public enum Output: Sendable {
        case message(SIPMessage)
        /// `CRLFCRLF` (RFC 5626 §4.4.1): answer with a single CRLF.
        case keepAlivePing
        /// A single `CRLF` answering our ping (RFC 5626 §4.4.1).
        case keepAlivePong
    }

    private enum State: Sendable {
        /// Looking for the end of a header section; `scanned` bytes after `readIndex` hold no
        /// terminator.
        case header(scanned: Int)
        /// Header section parsed; waiting until `total` bytes (header section + body) are buffered.
        case body(ParsedHead, total: Int)
        case failed(SIPParseError)
    }

    /// Which side of RFC 5626 §4.4.1 keep-alives this stream is on.
    public enum KeepAliveRole: Sendable, Hashable {
        /// We send `CRLFCRLF` pings and receive `CRLF` pongs (a user agent's flow).
        case client
        /// We receive pings (possibly split across reads) and answer them.
        case server
    }

    public let limits: SIPParserLimits
    public let role: KeepAliveRole
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var state: State = .header(scanned: 0)
    /// The last output was a pong taken from the very end of the buffer.
    private var pongAtEnd = false

    public init(limits: SIPParserLimits = .default, role: KeepAliveRole = .client) {
        self.limits = limits
        self.role = role
    }

    /// Bytes buffered and not yet returned.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// The bytes buffered and not yet returned: after ``next()`` threw, the message that did not
    /// frame (with whatever followed it), so a trace can still show what the peer sent.
    public var bufferedBytes: [UInt8] { Array(buffer[readIndex...]) }

    /// Adds bytes read from the stream.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex > 4096 && readIndex * 2 > buffer.count {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
    }

    /// The next complete output, or `nil` when more bytes are needed.
    public mutating func next() throws(SIPParseError) -> Output? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func step() throws(SIPParseError) -> Output? {
        switch state {
        case .failed(let error):
            throw error
        case .header(let scanned):
            if scanned == 0 {
                switch try keepAlive() {
                case .output(let output): return output
                case .needMoreData: return nil
                case .startLine: break
                }
            }
            guard let headerEnd = findHeaderEnd(from: scanned) else {
                if bufferedByteCount > limits.maxHeaderSectionSize {
                    throw SIPParseError(.headerSectionTooLarge, offset: limits.maxHeaderSectionSize)
                }
                return nil
            }
            pongAtEnd = false
            let head: ParsedHead = try buffer.withUnsafeBufferPointer { (p) throws(SIPParseError) -> ParsedHead in
                try MessageHeadParser.parse(
                    p, base: readIndex, end: readIndex + headerEnd, limits: limits,
                    datagram: false)
            }
            guard let contentLength = head.contentLength else {
                throw SIPParseError(
                    .missingContentLength, offset: head.headerEnd,
                    detail: "Content-Length is mandatory on stream transports")
            }
            state = .body(head, total: head.headerEnd + contentLength)
            return try step()
        case .body(let head, let total):
            guard bufferedByteCount >= total else { return nil }
            let storage = Array(buffer[readIndex..<readIndex + total])
            readIndex += total
            state = .header(scanned: 0)
            return .message(SIPMessage(storage: storage, head: head, body: head.headerEnd..<total))
        }
    }

    /// CRLFs before a start line (RFC 3261 §7.5, RFC 5626 §4.4.1).
    private enum KeepAliveStep {
        case output(Output)
        case needMoreData
        case startLine
    }

    private mutating func keepAlive() throws(SIPParseError) -> KeepAliveStep {
        while bufferedByteCount > 0 {
            let b0 = buffer[readIndex]
            if b0 == ByteClass.lf {  // a bare LF between messages: skipped (liberal)
                readIndex += 1
                pongAtEnd = false
                continue
            }
            guard b0 == ByteClass.cr else { return .startLine }
            guard bufferedByteCount >= 2 else { return .needMoreData }
            guard buffer[readIndex + 1] == ByteClass.lf else {
                throw SIPParseError(.bareCarriageReturn, offset: 0, detail: "CR without LF before a start line")
            }
            if pongAtEnd {
                readIndex += 2
                pongAtEnd = false
                return .output(.keepAlivePing)
            }
            if bufferedByteCount >= 4, buffer[readIndex + 2] == ByteClass.cr, buffer[readIndex + 3] == ByteClass.lf {
                readIndex += 4
                return .output(.keepAlivePing)
            }
            if bufferedByteCount == 3, buffer[readIndex + 2] == ByteClass.cr { return .needMoreData }
            readIndex += 2
            pongAtEnd = role == .server && bufferedByteCount == 0
            return .output(.keepAlivePong)
        }
        return .needMoreData
    }

    /// Offset (from `readIndex`) just after the empty line ending the header section, scanning
    /// only bytes not scanned before.
    private mutating func findHeaderEnd(from scanned: Int) -> Int? {
        let available = bufferedByteCount
        var resume = available
        let found: Int? = buffer.withUnsafeBufferPointer { p in
            var k = readIndex + scanned
            let end = readIndex + available
            while k < end {
                if p[k] == ByteClass.lf {
                    if k + 1 < end && p[k + 1] == ByteClass.lf { return k + 2 - readIndex }
                    if k + 2 < end && p[k + 1] == ByteClass.cr && p[k + 2] == ByteClass.lf { return k + 3 - readIndex }
                    if k + 2 >= end {
                        resume = k - readIndex  // undecided: rescan this LF when more bytes arrive
                        return nil
                    }
                }
                k += 1
            }
            return nil
        }
        if found == nil { state = .header(scanned: resume) }
        return found
    }
}
