import SIPCore
import SIPDialog
import SIPTransport

/// One INVITE the gateway holds or has released: the upstream transaction (from Kamailio) and,
/// once released, the downstream one (back to Kamailio, marked). RFC 3261 §16: the gateway is a
/// transaction-stateful proxy; the upstream server transaction answers 100 at once.
struct HeldCall: Sendable {
    /// Where the call is.
    enum Phase: Sendable, Hashable {
        /// RFC 3261 §16.2: received, 100 sent; the wake decision runs.
        case held
        /// §16.6: forwarded downstream (released, or to the failover URI).
        case released
        /// A final response went upstream (§16.7 step 10, or our own 480/487).
        case finished
    }

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
    var phase: Phase = .held
    var pushID: String?
    var pushSentMs: Int64?
    var ackMs: Int64?
    /// The INVITE forwarded downstream, its branch and when.
    var forwarded: SIPRequest?
    var downstreamBranch: String?
    var releasedMs: Int64?
    var gotDownstreamResponse = false
    var answered = false
    var rang = false
    /// Toward Kamailio: SIPDialog's INVITE server transaction (§17.2.1) holds the last response
    /// we sent (the 100, or our own 480/487/503), answers a retransmitted INVITE with it, and
    /// runs Timer G (our non-2xx again until the ACK) and H (64·T1). Relayed responses bypass it.
    var upstreamTransaction = InviteServerTransaction<[UInt8]>(reliable: false)
    var cancelledByCaller = false
    /// The decision gave up on the phone (480 upstream, or forwarded to the failover URI).
    var failedOver = false
    var cancelSent = false
    var qualifyBranch: String?
    /// Gone notice (option): when the INVITE went to the phone after the caller had left.
    var goneNoticeMs: Int64?
    /// When the caller's CANCEL arrived.
    var cancelledMs: Int64?
    /// The gone notice's final answer from the phone was seen (487, or a 2xx that raced our CANCEL).
    var goneNoticeDone = false
    /// A provisional answer came back on the gone notice's INVITE (Kamailio's own 100 counts).
    var goneNoticeProvisional = false
    /// No alerting answer within ``WakeGatewayServer/goneCancelFallbackMs``: CANCEL on any 1xx.
    var goneNoticeFallbackDue = false
    /// The ACK of a 2xx that raced the gone notice's CANCEL (repeated for 2xx retransmissions).
    var goneNoticeACK: [UInt8]?
}
