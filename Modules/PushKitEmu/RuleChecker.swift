/// The rule book: turns facts the simulation observes into typed ``Violation``s (docs/push-wake-rules.md).
///
/// Pure and step-local: every check looks at what happened in one event step (the ops a policy
/// callback recorded, the CallKit state right after them), so a verdict never depends on timing
/// noise. The simulation owns the facts; this type owns the judgement.
public struct RuleChecker: Sendable {
    /// Violations found so far, in time order.
    public private(set) var violations: [Violation] = []
    /// The pushes already flagged for a caller shown (one violation per push).
    private var callerShownFlagged: Set<Int32> = []
    let settings: EmulatorSettings

    public init(settings: EmulatorSettings) { self.settings = settings }

    /// Records a violation the simulation detected directly.
    public mutating func record(_ violation: Violation) { violations.append(violation) }

    /// R1 + R4 when the push handler returns. `ops` is what the handler did, in order.
    /// Returns `true` when R1 applied and was broken: iOS kills the app and counts a strike.
    public mutating func handlerReturned(_ push: VoIPPush, ops: [ClientOp], t: Int64) -> Bool {
        var report: Int?
        var network: Int?
        for (i, op) in ops.enumerated() {
            if case .reportNewIncomingCall = op, report == nil { report = i }
            if op.isNetworking, network == nil { network = i }
        }
        let r1Applies: Bool
        if let must = push.mustReport {
            r1Applies = must || !settings.mustReportFalseWaivesR1
        } else {
            r1Applies = true
        }
        guard r1Applies else { return false }
        if let n = network, n < (report ?? Int.max) {
            violations.append(Violation(.networkingBeforeReport, t: t, call: push.call, push: push.pushID))
        }
        guard report == nil else { return false }
        let kind: ViolationKind = push.mustReport == nil ? .notReportedBeforeReturn : .mustReportNotReported
        violations.append(Violation(kind, t: t, call: push.call, push: push.pushID))
        return true
    }

    /// R2: a strike was counted. Returns `true` when this strike starts the blackout.
    public mutating func strikeCounted(_ strikes: Int, t: Int64) -> Bool {
        guard strikes == settings.strikeThreshold else { return false }
        violations.append(Violation(.pushBlackout, t: t))
        return true
    }

    /// R3: the server sent a VoIP push; anything but a call breaks R3.
    public mutating func voipPushSent(content: PushContent, push: Int32, t: Int64) {
        guard content == .message || content == .keepAlive else { return }
        violations.append(Violation(.nonCallVoIPPush, t: t, push: push))
    }

    /// R6: APNs refused a request. Header problems are violations; token problems are lifecycle.
    public mutating func apnsRejected(_ reason: APNsRejection, call: Int32, push: Int32, t: Int64) {
        guard reason.isHeaderProblem else { return }
        violations.append(Violation(.apnsRequestRejected, t: t, call: call, push: push))
    }

    /// R5/R6 after the handler: an unusable or late push must not still ring.
    public mutating func pushHandled(_ push: VoIPPush, deliveredAt t: Int64, stillRinging uuid: Int32?) {
        guard let uuid else { return }
        if push.content != .call || push.origin == .unknown {
            violations.append(Violation(.unusablePushNotEnded, t: t, call: push.call, push: push.pushID, uuid: uuid))
        } else if t - push.sentAt > settings.staleAfterMs {
            violations.append(Violation(.staleDeliveryRang, t: t, call: push.call, push: push.pushID, uuid: uuid))
        }
    }

    /// R5 for a sealed push the phone could not trust (unknown gateway, missing key, unopenable,
    /// late): it must be reported as the app's name and ended at once. Acking it, or leaving it
    /// ringing when the handler returns, trusts a push the phone never verified.
    public mutating func untrustedSealedPushHandled(
        _ push: VoIPPush, verdict: SealVerdict, acked: Bool, stillRinging uuid: Int32?, t: Int64
    ) {
        guard !verdict.trusted, acked || uuid != nil else { return }
        violations.append(Violation(.sealedPushTrusted, t: t, call: push.call, push: push.pushID, uuid: uuid ?? -1))
    }

    /// R5: the app showed a caller (`show_caller`) for a sealed push whose verdict was not
    /// ``SealVerdict/opened``: a name the phone never verified. Once per push; both the virtual
    /// and the live phone report every `show_caller` here.
    public mutating func callerShown(uuid: Int32, push: Int32, verdict: SealVerdict?, call: Int32, t: Int64) {
        guard let verdict, !verdict.trusted, callerShownFlagged.insert(push).inserted else { return }
        violations.append(Violation(.sealedCallerShown, t: t, call: call, push: push, uuid: uuid))
    }

    /// WAKE: a failover for a phone that never woke must land within the bound.
    public mutating func failover(_ reason: FailoverReason, call: Int32, afterMs: Int64, t: Int64) {
        switch reason {
        case .noAck, .noToken, .apnsRejected:
            if afterMs > settings.failoverBoundMs { violations.append(Violation(.failoverTooSlow, t: t, call: call)) }
        case .noRegister, .inviteTimeout, .declined:
            break
        }
    }

    /// The rules broken, sorted, without repeats.
    public var rulesBroken: [RuleID] { Array(Set(violations.map(\.rule))).sorted() }
}
