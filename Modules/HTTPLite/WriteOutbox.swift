import Glibc

/// What a connection has still to write, in the order the writes were asked, each write with its
/// completion — pure: the socket is a parameter of ``flush(_:)``.
///
/// Why (docs/decisions.md D44): connections share a few serial queues (``ConnectionQueues``), so
/// a connection whose peer does not read must never hold one of them in `poll`. What the socket
/// does not take at once stays here and is written as soon as the socket is writable again
/// (the connection's write source fires), never on a retry timer.
struct WriteOutbox {
    typealias Done = @Sendable (Bool) -> Void

    struct Entry {
        var bytes: [UInt8]
        /// Bytes of ``bytes`` already sent.
        var offset = 0
        /// How long the peer may take no bytes of this write before the connection gives up.
        var timeoutMs: Int32
        var done: Done?
    }

    /// How a ``flush(_:)`` ended.
    enum Flush: Equatable {
        /// Everything was sent.
        case drained
        /// The socket is full (EAGAIN): wait for writability; `timeoutMs` is the head write's.
        case blocked(timeoutMs: Int32)
        /// The socket failed (errno): the rest can never be sent (``failAll()``).
        case failed(errno: Int32)
    }

    private(set) var entries: [Entry] = []
    /// Bytes sent so far, over the connection's life: progress the deadline check looks at.
    private(set) var sentBytes = 0

    var isEmpty: Bool { entries.isEmpty }
    var pendingBytes: Int { entries.reduce(0) { $0 + $1.bytes.count - $1.offset } }

    mutating func append(_ bytes: [UInt8], timeoutMs: Int32, done: Done?) {
        entries.append(Entry(bytes: bytes, timeoutMs: timeoutMs, done: done))
    }

    /// Sends from the head while the socket takes bytes. `send` gets the bytes still to send of
    /// one write and returns how many it took, or `-errno`. Returns how the flush ended and the
    /// completions of the writes finished on the way (to be called with `true`).
    mutating func flush(_ send: (UnsafeRawBufferPointer) -> Int) -> (Flush, completed: [Done]) {
        var completed: [Done] = []
        while !entries.isEmpty {
            let entry = entries[0]
            if entry.offset < entry.bytes.count {
                let n = entry.bytes.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[entry.offset...])) }
                if n < 0 {
                    let e = Int32(-n)
                    if e == EINTR { continue }
                    if e == EAGAIN || e == EWOULDBLOCK { return (.blocked(timeoutMs: entry.timeoutMs), completed) }
                    return (.failed(errno: e), completed)
                }
                entries[0].offset += n
                sentBytes += n
                if entries[0].offset < entry.bytes.count { continue }
            }
            if let done = entries.removeFirst().done { completed.append(done) }
        }
        return (.drained, completed)
    }

    /// Drops every write not yet sent whole; their completions, to be called with `false`.
    mutating func failAll() -> [Done] {
        let done = entries.compactMap(\.done)
        entries.removeAll()
        return done
    }
}
