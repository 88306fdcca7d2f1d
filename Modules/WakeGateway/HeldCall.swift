import SIPCore
import SIPDialog
import SIPTransport

/// One INVITE the gateway holds or has released, as the actor keeps it: what it needs to build
/// the call's messages and events, and the call's ``HeldCallMachine`` — which alone decides
/// (RFC 3261 §16: the gateway is a transaction-stateful proxy). Nothing here is a state flag:
/// where the call is, whether the caller left, whether a CANCEL went down, all live in the
/// machine; the fields below are addresses, branches and times for the messages and events.
struct HeldCall: Sendable {
    typealias Machine = HeldCallMachine<SIPResponse>

    let id: Int32
    /// The R-URI user (`asterisk_endpoint`).
    let user: String
    let domain: String
    let caller: String
    let callID: String
    /// The INVITE as Kamailio sent it.
    let invite: SIPRequest
    let upstream: SocketAddress
    let upstreamBranch: String
    let toTag: String
    let arrivedMs: Int64
    /// The proxy's decisions for this call (events in, actions out).
    var machine: Machine
    var pushID: String?
    var pushSentMs: Int64?
    var ackMs: Int64?
    /// The INVITE forwarded downstream, as sent (Timer A resends these bytes), its branch and when.
    var forwarded: SIPRequest?
    var forwardedBytes: [UInt8] = []
    var downstreamBranch: String?
    var releasedMs: Int64?
    var qualifyBranch: String?
    /// Gone notice (option): when the INVITE went to the phone after the caller had left.
    var goneNoticeMs: Int64?
    /// When the caller's CANCEL arrived.
    var cancelledMs: Int64?
    /// The ACK of a 2xx that raced the gone notice's CANCEL (repeated for 2xx retransmissions).
    var goneNoticeACK: [UInt8]?

    /// Nothing went downstream and no final went upstream (the call counts as held).
    var isHeld: Bool { machine.isHeld }
}
