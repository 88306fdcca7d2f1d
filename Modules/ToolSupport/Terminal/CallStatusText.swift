/// The status line of an interactive call, laid out for the terminal's width:
/// `● in call 0:12 PCMA · ↑612 ↓610 · loss 0.0 % · jitter 0.3 ms · h hang up · H hold · s stats · q quit · ? keys`.
///
/// What matters most stays when the terminal is narrow: the state and the talk time always,
/// then the loss, the packet counters, the codec, the jitter — each piece kept only if it
/// still fits — and the key hint shrinks from every key to `? keys` (which lists them all).
/// A line that wraps would be redrawn over its own second row (``StatusLine``), so it never does.
///
/// Loss is shown once the receiver has expected enough packets for a percentage to mean
/// something (RFC 3550 §6.4.1: lost / expected; one lost of the first two is not "50 %" of a
/// call): until then it is left out. While the call is on hold the hint offers `H resume`.
/// Pure: figures in, text out.
public struct CallStatusText: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        case noCall
        case settingUp
        case inCall
        /// Held by this side (`H` resumes).
        case onHold
        /// Held by the other side (`H` still holds from here too).
        case heldByPeer
    }

    public var state: State
    /// Since the answer.
    public var seconds = 0
    public var codec = ""
    public var packetsSent = 0
    public var packetsReceived = 0
    /// Packets the receiver expected so far (received + lost, RFC 3550 A.3).
    public var packetsExpected = 0
    public var lossPercent = 0.0
    public var jitterMilliseconds = 0.0

    /// Packets expected before a loss percentage is shown: one second of 20 ms frames.
    public static let lossAfterPackets = 50

    public init(state: State) { self.state = state }

    /// The line, at most `width` characters.
    public func render(width: Int) -> String {
        switch state {
        case .noCall: return Self.pick(["○ no call · q quit · ? keys", "○ no call · ? keys", "○ no call"], width)
        case .settingUp:
            return Self.pick(["◌ setting up the call · h hang up · q quit", "◌ setting up the call · ? keys", "◌ calling"], width)
        case .inCall, .onHold, .heldByPeer: break
        }
        let name = state == .onHold ? "on hold" : (state == .heldByPeer ? "held by the other side" : "in call")
        let clock = "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + String(seconds % 60)
        let head = "● \(name) \(clock)"
        // Display order; `rank` is the order in which pieces are kept as room allows.
        var pieces: [(text: String, rank: Int, joined: String)] = []
        if !codec.isEmpty { pieces.append((codec, 3, " ")) }
        pieces.append(("↑\(packetsSent) ↓\(packetsReceived)", 2, " · "))
        if packetsExpected >= Self.lossAfterPackets {
            pieces.append(("loss \((lossPercent * 10).rounded() / 10) %", 1, " · "))
        }
        pieces.append(("jitter \((jitterMilliseconds * 10).rounded() / 10) ms", 4, " · "))
        let hold = state == .onHold ? "H resume" : "H hold"
        let hints = ["h hang up · \(hold) · s stats · q quit · ? keys", "h hang up · \(hold) · ? keys", "? keys"]
        func line(_ kept: Set<Int>, hint: String?) -> String {
            var text = head
            for (index, piece) in pieces.enumerated() where kept.contains(index) { text += piece.joined + piece.text }
            if let hint { text += " · " + hint }
            return text
        }
        var kept: Set<Int> = []
        let shortest = hints.last!
        for index in pieces.indices.sorted(by: { pieces[$0].rank < pieces[$1].rank }) {
            if line(kept.union([index]), hint: shortest).count <= width { kept.insert(index) }
        }
        for hint in hints where line(kept, hint: hint).count <= width { return line(kept, hint: hint) }
        return StatusLine.fit(line(kept, hint: nil), to: width)
    }

    /// The first of `candidates` that fits, else the last one cut.
    static func pick(_ candidates: [String], _ width: Int) -> String {
        candidates.first { $0.count <= width } ?? StatusLine.fit(candidates.last!, to: width)
    }
}
