import SIPTransport
import Synchronization

/// The registration's phases as stamped on the wire: the transport's trace hook (``SIPTrace``
/// `observe`) sees each REGISTER leave and each response arrive, with the very stamp
/// `--sip-trace` prints, so `timings_ms` agree with the trace instead of measuring when the
/// tool got round to its events (decision D32). Called on the transport's queue; read by the
/// run loop.
final class WireTimings: Sendable {
    struct Stamps: Sendable {
        var firstRequest: WireTime?
        var firstResponse: WireTime?
        /// The latest 2xx to a REGISTER (the one that registered, when read at `registered`).
        var lastSuccess: WireTime?
    }

    private let stamps = Mutex(Stamps())

    var current: Stamps { stamps.withLock { $0 } }

    /// The flow's trace: `base` (the `--sip-trace`/capture sink, if any) with these stamps taken first.
    func trace(over base: SIPTrace?) -> SIPTrace {
        SIPTrace.observing(base) { [self] message in note(message) }
    }

    private func note(_ message: SIPTrace.Message) {
        let bytes = message.bytes
        let at = WireTime(seconds: message.timestamp.seconds, nanoseconds: message.timestamp.nanoseconds)
        switch message.direction {
        case .sent:
            guard Self.hasPrefix(bytes, "REGISTER ") else { return }
            stamps.withLock { if $0.firstRequest == nil { $0.firstRequest = at } }
        case .received:
            guard Self.hasPrefix(bytes, "SIP/2.0 "), bytes.count > 9, Self.isRegisterResponse(bytes) else { return }
            let success = bytes[8] == UInt8(ascii: "2")
            stamps.withLock {
                if $0.firstResponse == nil { $0.firstResponse = at }
                if success { $0.lastSuccess = at }
            }
        }
    }

    private static func hasPrefix(_ bytes: [UInt8], _ prefix: StaticString) -> Bool {
        let p = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return bytes.count >= p.count && bytes.prefix(p.count).elementsEqual(p)
    }

    /// A response whose CSeq method is REGISTER (a byte scan of the header section, RFC 3261 §20.16).
    private static func isRegisterResponse(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self).lowercased()
        for line in text.split(separator: "\r\n") {
            if line.isEmpty { break }
            guard line.hasPrefix("cseq:") else { continue }
            return line.hasSuffix("register") || line.contains(" register")
        }
        return false
    }
}
