/// RFC 4733 §2.5.1 sender of telephone events, one call per packet interval.
///
/// For each digit: a first packet with the marker bit (§2.5.1.1), updates every interval with a
/// growing duration and the same timestamp (§2.5.1.2), then the end packet three times
/// (§2.5.1.4), then a pause before the next digit. While it is ``isActive`` the session sends no
/// audio. Pure state machine: the caller supplies the media timestamp, we return packets.
public struct DTMFSender: Sendable {
    /// A telephone-event packet to send now.
    public struct Packet: Sendable, Hashable {
        public var marker: Bool
        /// The event's start timestamp (same for every packet of the event).
        public var timestamp: UInt32
        public var payload: TelephoneEventPayload
    }

    /// Timestamp units per packet interval (160 = 20 ms at 8 kHz).
    public let samplesPerPacket: UInt32
    /// Tone duration in timestamp units.
    public var toneSamples: UInt32
    /// Silence between digits, in packet intervals.
    public var pauseIntervals: Int
    public var volume: UInt8

    private enum State: Sendable {
        /// Nothing queued.
        case idle
        /// Sending the tone: start timestamp, duration so far.
        case tone(DTMFDigit, start: UInt32, duration: UInt32)
        /// RFC 4733 §2.5.1.4: end packet retransmissions left.
        case ending(DTMFDigit, start: UInt32, duration: UInt32, remaining: Int)
        /// Inter-digit pause, intervals left.
        case pause(Int)
    }

    private var state: State = .idle
    private var queue: [DTMFDigit] = []

    public init(
        samplesPerPacket: UInt32 = 160, toneDuration: Duration = .milliseconds(100),
        pause: Duration = .milliseconds(60), volume: UInt8 = 10, clockRate: Int = 8000
    ) {
        self.samplesPerPacket = samplesPerPacket
        let ms = { (d: Duration) -> Int64 in
            d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        }
        self.toneSamples = UInt32(ms(toneDuration) * Int64(clockRate) / 1000)
        let interval = max(1, Int64(samplesPerPacket) * 1000 / Int64(clockRate))
        self.pauseIntervals = Int((ms(pause) + interval - 1) / interval)
        self.volume = volume
    }

    public mutating func enqueue(_ digits: [DTMFDigit]) { queue += digits }

    /// True while a digit is being sent or queued.
    public var isActive: Bool {
        if case .idle = state { return !queue.isEmpty }
        return true
    }

    /// True while a digit's packets (not the pause) are being sent: audio must not be sent.
    public var suppressesAudio: Bool {
        switch state {
        case .tone, .ending: true
        case .idle: !queue.isEmpty
        case .pause: false
        }
    }

    /// Called once per packet interval with the current media timestamp; returns the packet to
    /// send, or nil (idle or pausing).
    public mutating func tick(timestamp now: UInt32) -> Packet? {
        switch state {
        case .idle:
            guard !queue.isEmpty else { return nil }
            let digit = queue.removeFirst()
            state = .tone(digit, start: now, duration: samplesPerPacket)
            return Packet(
                marker: true, timestamp: now,
                payload: TelephoneEventPayload(
                    event: digit.rawValue, isEnd: false, volume: volume,
                    duration: UInt16(samplesPerPacket)))
        case .tone(let digit, let start, let duration):
            let next = min(duration + samplesPerPacket, 0xFFFF)
            if next >= toneSamples {
                state = .ending(digit, start: start, duration: next, remaining: 2)
                return Packet(marker: false, timestamp: start, payload: endPayload(digit, next))
            }
            state = .tone(digit, start: start, duration: next)
            return Packet(
                marker: false, timestamp: start,
                payload: TelephoneEventPayload(
                    event: digit.rawValue, isEnd: false, volume: volume,
                    duration: UInt16(next)))
        case .ending(let digit, let start, let duration, let remaining):
            state =
                remaining > 1
                ? .ending(digit, start: start, duration: duration, remaining: remaining - 1) : .pause(pauseIntervals)
            return Packet(marker: false, timestamp: start, payload: endPayload(digit, duration))
        case .pause(let left):
            state = left > 1 ? .pause(left - 1) : .idle
            return nil
        }
    }

    private func endPayload(_ digit: DTMFDigit, _ duration: UInt32) -> TelephoneEventPayload {
        TelephoneEventPayload(
            event: digit.rawValue, isEnd: true, volume: volume, duration: UInt16(min(duration, 0xFFFF)))
    }
}
