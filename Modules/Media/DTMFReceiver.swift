/// RFC 4733 §2.5.2 receiver: turns telephone-event packets (with retransmitted updates and
/// triple end packets) into exactly one began/ended pair per event.
///
/// Events are identified by their RTP timestamp (§2.5.2.1: a new timestamp is a new event).
public struct DTMFReceiver: Sendable {
    public enum Event: Sendable, Hashable {
        case began(DTMFDigit)
        /// Duration in timestamp units.
        case ended(DTMFDigit, duration: UInt32)
    }

    private var currentTimestamp: UInt32?
    private var currentDigit: DTMFDigit?
    private var ended = false
    /// Timestamps of recently ended events, to ignore late retransmissions.
    private var recentlyEnded: [UInt32] = []

    public init() {}

    /// Processes one packet's timestamp and payload bytes. Unknown event codes (> 15) are
    /// ignored.
    public mutating func receive(timestamp: UInt32, payload: some Collection<UInt8>) throws(MediaError) -> [Event] {
        let p = try TelephoneEventPayload(parsing: payload)
        guard let digit = DTMFDigit(rawValue: p.event) else { return [] }
        if recentlyEnded.contains(timestamp) { return [] }
        var events: [Event] = []
        if currentTimestamp != timestamp {
            // A new event; close a previous one whose end packets were all lost.
            if let previous = currentDigit, !ended { events.append(.ended(previous, duration: 0)) }
            currentTimestamp = timestamp
            currentDigit = digit
            ended = false
            events.append(.began(digit))
        }
        if p.isEnd && !ended {
            ended = true
            events.append(.ended(digit, duration: UInt32(p.duration)))
            recentlyEnded.append(timestamp)
            if recentlyEnded.count > 8 { recentlyEnded.removeFirst() }
        }
        return events
    }
}
