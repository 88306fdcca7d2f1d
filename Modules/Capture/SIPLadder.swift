import SIPCore
import SIPTransport
import ToolSupport

/// A SIP ladder (call flow): every captured SIP message as an arrow between the socket
/// addresses that exchanged it, labelled with its method or status — `INVITE (SDP)`,
/// `401 Unauthorized (REGISTER)`. Failure responses (≥ 400 but for the 401/407 challenges) are
/// red, repeated bytes (retransmissions) grey. Built a message at a time, so `--sip-trace=ladder`
/// can print each line as it happens and `astra-trace` can draw a whole file.
public struct SIPLadder: Sendable {
    public private(set) var diagram = SequenceDiagram(title: "", lanes: [])
    private var laneOf: [SocketAddress: Int] = [:]
    private var start: CapturedPacket.Time?
    private var seen: Set<Int> = []

    public init() {}

    /// The step for `packet` (numbered from 1), and the lanes it added.
    @discardableResult
    public mutating func add(_ packet: CapturedPacket) -> (step: SequenceDiagram.Step, newLanes: Int) {
        let before = diagram.lanes.count
        let local = lane(for: packet.local, subtitle: "local " + packet.transport.viaToken)
        let remote = lane(for: packet.remote, subtitle: packet.transport.viaToken)
        let first = start ?? packet.time
        start = first
        var (label, style) = Self.label(packet.bytes)
        var fingerprint = Hasher()
        fingerprint.combine(packet.direction)
        fingerprint.combine(packet.bytes)
        if !seen.insert(fingerprint.finalize()).inserted {
            label += " (again)"
            style = .muted
        }
        let step = SequenceDiagram.Step(
            time: Self.seconds(packet.time.seconds(since: first)),
            mark: packet.direction == .sent ? .arrow(from: local, to: remote) : .arrow(from: remote, to: local),
            label: label, style: style, number: diagram.steps.count + 1)
        diagram.steps.append(step)
        return (step, diagram.lanes.count - before)
    }

    private mutating func lane(for address: SocketAddress, subtitle: String) -> Int {
        if let index = laneOf[address] { return index }
        diagram.lanes.append(SequenceDiagram.Lane(address.description, subtitle: subtitle))
        laneOf[address] = diagram.lanes.count - 1
        return diagram.lanes.count - 1
    }

    /// `INVITE (SDP)`, `180 Ringing (INVITE)`; a message that does not parse is named by size.
    public static func label(_ bytes: [UInt8]) -> (String, SequenceDiagram.Style) {
        guard let message = try? SIPMessage(parsing: bytes) else {
            return ("(not SIP: \(bytes.count) bytes)", .error)
        }
        let sdp = message.headers.contentType?.lowercased().hasPrefix("application/sdp") == true
            && !message.bodyBytes.isEmpty
        let body = sdp ? " (SDP)" : ""
        switch message {
        case .request(let request):
            return (request.method.rawValue + body, .normal)
        case .response(let response):
            let method = (try? response.headers.cseq())?.method.rawValue
            let code = response.statusCode
            let about = [method, sdp ? "SDP" : nil].compactMap { $0 }.joined(separator: ", ")
            let text = "\(code) \(response.reasonPhrase)" + (about.isEmpty ? "" : " (\(about))")
            return (text, code >= 400 && code != 401 && code != 407 ? .error : .normal)
        }
    }

    /// `12.345`: seconds with three decimals.
    static func seconds(_ value: Double) -> String {
        let millis = Int((max(0, value) * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
