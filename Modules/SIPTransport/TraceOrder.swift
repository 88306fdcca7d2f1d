import Synchronization

/// Keeps a UDP socket's `--sip-trace` in wire order. A datagram sent without waiting
/// (``UDPTransport/sendImmediately(_:to:)``) is recorded only once `sendto` took it, so
/// that a send that did not happen is never traced; but its answer may come back on the
/// socket's queue before that record. The send and its record, and every received record,
/// run under this one lock: the answer's record waits until the request's is written, and
/// every export (ladder, trace file, pcap, HEP) sees the request first.
final class TraceOrder: Sendable {
    private let lock = Mutex(())

    init() {}

    func run<Result>(_ body: () -> Result) -> Result {
        lock.withLock { _ in body() }
    }
}
