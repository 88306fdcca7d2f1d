/// The one buffer a ``SIPRequest`` or ``SIPResponse`` keeps its received bytes in, and where
/// its parts lie in it: the start line as received, the whole message as received (for
/// byte-exact serialization, RFC 3261 §7), the body, and (held by the message) the raw
/// Request-URI or reason phrase.
///
/// A parsed message keeps these as offsets into one buffer, not as one `ArraySlice` each: every
/// slice is a reference to the same buffer, retained and released on every copy and every
/// destruction of the message, and a slice is 32 bytes to a range's 16. One reference instead
/// of four took 916 instructions off each parsed message (decisions D43).
///
/// Invariant: whatever the message still reads from the buffer besides the body lies before
/// the body. Replacing the body keeps the bytes before it; replacing what precedes the body
/// (``replaceHead(with:)``, once the start line is no longer the received one) keeps the body.
struct MessageBytes: Sendable {
    private(set) var buffer: [UInt8]
    /// End of the start line as received, terminator included; 0 once the start line changed,
    /// and for a built message.
    private(set) var startLineEnd: Int
    /// End of the whole message as received (the end of its body); 0 once anything changed,
    /// and for a built message.
    private(set) var messageEnd: Int
    private(set) var bodyRange: Range<Int>

    /// A parsed message: `buffer` starts with its start line (`startLineEnd` long) and holds
    /// its body at `body`.
    init(parsed buffer: [UInt8], startLineEnd: Int, body: Range<Int>) {
        self.buffer = buffer
        self.startLineEnd = startLineEnd
        self.messageEnd = body.upperBound
        self.bodyRange = body
    }

    /// A built message: `head` (a reason phrase, or nothing) and then the body.
    init(head: [UInt8] = [], body: [UInt8]) {
        if head.isEmpty {
            buffer = body
        } else {
            buffer = head
            buffer.append(contentsOf: body)
        }
        startLineEnd = 0
        messageEnd = 0
        bodyRange = head.count..<buffer.count
    }

    /// The start line as received, terminator included; nil once it changed.
    var rawStartLine: ArraySlice<UInt8>? { startLineEnd > 0 ? buffer[0..<startLineEnd] : nil }

    /// The whole message as received; nil once anything changed.
    var original: ArraySlice<UInt8>? { messageEnd > 0 ? buffer[0..<messageEnd] : nil }

    var body: ArraySlice<UInt8> { buffer[bodyRange] }

    subscript(range: Range<Int>) -> ArraySlice<UInt8> { buffer[range] }

    /// The bytes at `range` as UTF-8 text.
    func string(_ range: Range<Int>) -> String { String(decoding: buffer[range], as: UTF8.self) }

    /// The headers changed: the message is no longer the one received.
    mutating func headersChanged() { messageEnd = 0 }

    /// The start line changed: it is written from its parts from now on.
    mutating func startLineChanged() {
        startLineEnd = 0
        messageEnd = 0
    }

    /// A new body; the bytes before the old one stay where they were.
    mutating func replaceBody(with body: [UInt8]) {
        let start = bodyRange.lowerBound
        if start == 0 {
            buffer = body
        } else {
            var next = [UInt8]()
            next.reserveCapacity(start + body.count)
            next.append(contentsOf: buffer[0..<start])
            next.append(contentsOf: body)
            buffer = next
        }
        bodyRange = start..<buffer.count
        messageEnd = 0
    }

    /// Replaces everything before the body by `head` (a new reason phrase); returns where it
    /// now lies. The start line as received is gone with it.
    mutating func replaceHead(with head: [UInt8]) -> Range<Int> {
        self = MessageBytes(head: head, body: Array(body))
        return 0..<head.count
    }
}
