import PushKitEmu
import SIPCore
import SIPDialog
import SIPTransport
import Synchronization

/// Notes the `Reason` header (RFC 3326) of every final failure to an INVITE the caller receives,
/// by Call-ID. The wake gateway's failover 480 carries `Reason: SIP;cause=480;text="wake no_ack"`;
/// the call layer reports only the status, so the live caller reads the reason here.
public final class ResponseTap: Sendable {
    private let reasons = Mutex<[String: String]>([:])

    public init() {}

    /// The `Reason` header value of the final failure for `callID`, if one came.
    public func reason(callID: String) -> String? { reasons.withLock { $0[callID] } }

    func observe(_ event: FlowEvent) {
        guard case .message(let received) = event, case .response(let response) = received.message,
            response.statusCode >= 300, let callID = response.headers.callID,
            (try? response.headers.cseq())?.method == .invite, let reason = response.headers["Reason"]
        else { return }
        reasons.withLock { $0[callID] = reason }
    }

    /// The failover reason named by a wake gateway `Reason` header (`text="wake <reason>"`), if any.
    public static func failoverReason(_ header: String) -> FailoverReason? {
        guard let text = quotedParameter("text", in: header) else { return nil }
        let words = text.split(separator: " ")
        guard words.count == 2, words[0] == "wake" else { return nil }
        return FailoverReason(rawValue: String(words[1]))
    }

    /// `name="value"` (or `name=token`) from a header value's parameters.
    static func quotedParameter(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: " \t").lowercased() == name else { continue }
            var value = pair[1].trimmingCharacters(in: " \t")
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}

/// A ``SIPMessageChannel`` over a ``SIPFlow`` that shows every flow event to a ``ResponseTap``
/// before the endpoint sees it (one relay task; the order of events is kept).
struct TappedChannel: SIPMessageChannel {
    let flow: SIPFlow
    let events: AsyncStream<FlowEvent>

    init(flow: SIPFlow, tap: ResponseTap) {
        self.flow = flow
        let (stream, feed) = AsyncStream.makeStream(of: FlowEvent.self)
        events = stream
        let source = flow.events
        Task {
            for await event in source {
                tap.observe(event)
                feed.yield(event)
            }
            feed.finish()
        }
    }

    func start() async { await flow.start() }
    func send(_ message: [UInt8]) async throws(TransportError) { try await flow.send(message) }
    func sendImmediately(_ message: [UInt8]) -> Bool { flow.sendImmediately(message) }
    func stop() async { await flow.stop() }
}
