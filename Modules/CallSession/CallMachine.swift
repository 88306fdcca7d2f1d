import Media
import SIPDialog

/// The call-level state machine (pure): it turns signalling events (`InviteEvent`), user
/// commands and media observations into a ``CallState`` and actions for the ``Call`` actor —
/// which owns the `InviteUsage` (RFC 3261 §13–§15) and the `MediaSession` and executes them.
/// Impossible inputs (e.g. answering twice) are ignored with no action, never trapped on.
public struct CallMachine: Sendable, Hashable {
    public enum Role: Sendable, Hashable { case caller, callee }

    public enum Action: Sendable, Hashable {
        /// Report this event.
        case emit(CallEvent)
        /// Apply the peer's SDP answer (initial, early, or to our re-offer) and make sure media runs.
        case applyAnswer(SessionBody, early: Bool)
        /// Answer the peer's re-offer (RFC 3264 §8): hold/resume from the other side.
        case answerOffer(SessionBody?)
        /// Stop the media session (RTCP BYE, RFC 3550 §6.6) and collect the statistics.
        case stopMedia
        /// Tell the signalling to hang up (CANCEL, BYE or a final rejection as its state needs).
        case hangUpSignalling
    }

    public private(set) var state: CallState = .idle
    public let role: Role
    /// Set by a local end decision (e.g. RTP timeout) that outranks the signalling's reason.
    public private(set) var pendingReason: CallEndReason?
    /// The direction we asked for in our last re-offer (hold / resume in flight).
    private var requestedDirection: MediaDirection?
    /// Whether the peer has us on hold.
    private var heldByPeer = false
    private var endReported = false

    public init(role: Role) { self.role = role }

    /// Caller: the INVITE went out (RFC 3261 §13.2.1). Callee: an INVITE arrived (§13.3.1).
    public mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        return move(to: role == .caller ? .calling : .ringing)
    }

    /// Callee: we answered with 200 (media starts with our answer).
    public mutating func answered() -> [Action] {
        guard role == .callee, state == .ringing || state == .early else { return [] }
        return move(to: .active)
    }

    /// The user hangs up (or the tool's duration ran out / SIGINT).
    public mutating func hangUp(reason: CallEndReason? = nil) -> [Action] {
        switch state {
        case .ending, .ended: return []
        default:
            if pendingReason == nil { pendingReason = reason }
            return move(to: .ending) + [.hangUpSignalling]
        }
    }

    /// No RTP for too long during an active call: hang up with ``CallEndReason/rtpTimeout``.
    public mutating func rtpTimedOut() -> [Action] {
        guard state == .active else { return [] }
        return hangUp(reason: .rtpTimeout)
    }

    /// We sent a re-INVITE with this direction (RFC 3264 §8.4: sendonly/inactive = hold).
    public mutating func reofferSent(direction: MediaDirection) {
        requestedDirection = direction
    }

    /// A signalling event from the `InviteUsage`.
    public mutating func handle(_ event: InviteEvent) -> [Action] {
        switch event {
        case .trying:
            return [.emit(.trying)]
        case .ringing:
            guard state == .calling else { return [.emit(.ringing)] }
            return move(to: .ringing) + [.emit(.ringing)]
        case .earlyMedia(let body):
            guard state == .calling || state == .ringing || state == .early else { return [] }
            let first = state != .early
            return (first ? move(to: .early) + [.emit(.earlyMedia)] : []) + [.applyAnswer(body, early: true)]
        case .answered(let body):
            guard state != .ending && state != .ended else {
                return body.map { [.applyAnswer($0, early: false)] } ?? []
            }
            return move(to: .active) + (body.map { [.applyAnswer($0, early: false)] } ?? [])
        case .confirmed(let body):
            return body.map { [.applyAnswer($0, early: false)] } ?? []
        case .remoteOffer(let body):
            return [.answerOffer(body)]
        case .offerAnswered(let body):
            var actions: [Action] = body.map { [.applyAnswer($0, early: false)] } ?? []
            if let direction = requestedDirection {
                requestedDirection = nil
                actions += localDirectionChanged(direction)
            }
            return actions
        case .offerRejected:
            requestedDirection = nil
            return []
        case .ended(let reason):
            return finish(pendingReason ?? CallEndReason(reason))
        case .challenged, .forkReleased, .glare, .info, .sessionTimer:
            return []
        }
    }

    /// After we answered a re-offer: the direction we now have (RFC 3264 §6.1 mirror of theirs).
    public mutating func peerDirectionChanged(_ ours: MediaDirection) -> [Action] {
        guard state == .active || state == .held else { return [] }
        let onHold = ours != .sendrecv
        guard onHold != heldByPeer else { return [] }
        heldByPeer = onHold
        if onHold { return move(to: .held) + [.emit(.held(byPeer: true, direction: ours))] }
        return move(to: .active) + [.emit(.resumed(byPeer: true))]
    }

    private mutating func localDirectionChanged(_ direction: MediaDirection) -> [Action] {
        guard state == .active || state == .held else { return [] }
        if direction == .sendrecv {
            return state == .held ? move(to: .active) + [.emit(.resumed(byPeer: false))] : []
        }
        return move(to: .held) + [.emit(.held(byPeer: false, direction: direction))]
    }

    /// The end: stop media; the actor then reports ``CallEvent/ended(_:_:)`` with statistics.
    private mutating func finish(_ reason: CallEndReason) -> [Action] {
        guard !endReported else { return [] }
        endReported = true
        pendingReason = reason
        return move(to: .ended) + [.stopMedia]
    }

    private mutating func move(to next: CallState) -> [Action] {
        guard next != state else { return [] }
        state = next
        return [.emit(.state(next))]
    }
}
