import AstraJSON
import PushKitEmu

/// The machine's reports as the gateway's events (docs/wake-gateway.md "Events") and metrics: the
/// machine says what happened, the shell adds the call's fields and times.
extension WakeGatewayServer {
    func report(_ report: Machine.Report, _ call: HeldCall) {
        let id = Int64(call.id)
        let now = nowMs
        let sinceInvite: (String, JSONValue) = ("since_invite_ms", .int(now - call.arrivedMs))
        switch report {
        case .held:
            emit(WakeEvent("call_held", heldFields(call)))
        case .qualify:
            break  // told with its target where the OPTIONS is built (``qualify(_:)``)
        case .released(let direct):
            let released = call.releasedMs ?? now
            emit(
                WakeEvent(
                    "released",
                    [
                        ("call", .int(id)), ("call_id", .string(call.callID)), ("user", .string(call.user)),
                        ("direct", .bool(direct)), ("push_id", .string(call.pushID.map(PushGrants.redacted) ?? "")),
                        ("since_ack_ms", .int(call.ackMs.map { released - $0 } ?? -1)),
                        ("since_invite_ms", .int(released - call.arrivedMs)),
                    ]))
        case .failover(let reason, let toURI):
            let elapsed = now - call.arrivedMs
            metrics.failedOver(reason: reason.rawValue, afterSeconds: Double(elapsed) / 1_000)
            var fields: [(String, JSONValue)] = [
                ("call", .int(id)), ("call_id", .string(call.callID)), ("reason", .string(reason.rawValue)),
            ]
            fields.append(toURI ? ("target", .string(configuration.failoverURI ?? "")) : ("status", .int(480)))
            fields += [
                sinceInvite, ("since_push_ms", .int(call.pushSentMs.map { now - $0 } ?? -1)),
                ("since_ack_ms", .int(call.ackMs.map { now - $0 } ?? -1)),
            ]
            emit(WakeEvent("failover", fields))
        case .ringing(let status):
            if let pushed = call.pushSentMs { metrics.rang(afterPushSeconds: Double(now - pushed) / 1_000) }
            emit(
                WakeEvent(
                    "ringing",
                    [
                        ("call", .int(id)), ("status", .int(Int64(status))),
                        ("since_release_ms", .int(now - (call.releasedMs ?? now))), sinceInvite,
                    ]))
        case .answered:
            emit(
                WakeEvent(
                    "answered",
                    [("call", .int(id)), ("since_release_ms", .int(now - (call.releasedMs ?? now))), sinceInvite]))
        case .cancelled(let phase):
            emit(
                WakeEvent(
                    "cancelled",
                    [("call", .int(id)), ("call_id", .string(call.callID)), ("phase", .string(phase)), sinceInvite]))
        case .cancelSent:
            emit(WakeEvent("cancel_sent", [("call", .int(id))]))
        case .ended(let status, let why):
            emit(
                WakeEvent(
                    "call_ended",
                    [
                        ("call", .int(id)), ("call_id", .string(call.callID)), ("status", .int(Int64(status))),
                        ("why", .string(why)), sinceInvite,
                    ]))
        case .goneNotice:
            let registerMs = lastRegisterMs[call.user]
            emit(
                WakeEvent(
                    "gone_notice",
                    [
                        ("call", .int(id)), ("call_id", .string(call.callID)), ("user", .string(call.user)),
                        ("push_id", .string(call.pushID.map(PushGrants.redacted) ?? "")),
                        ("channel", .string("invite_cancel")),
                        ("since_cancel_ms", .int(call.cancelledMs.map { now - $0 } ?? -1)),
                        ("since_register_ms", .int(registerMs.map { now - $0 } ?? -1)),
                        ("since_ack_ms", .int(call.ackMs.map { now - $0 } ?? -1)),
                    ]))
        case .goneNoticeDone(let status):
            emit(
                WakeEvent(
                    "gone_notice_done",
                    [
                        ("call", .int(id)), ("call_id", .string(call.callID)), ("status", .int(Int64(status))),
                        ("since_notice_ms", .int(call.goneNoticeMs.map { now - $0 } ?? -1)),
                        ("since_cancel_ms", .int(call.cancelledMs.map { now - $0 } ?? -1)),
                    ]))
        }
    }

    /// `call_held`: a sealed registration's caller is for the phone only, not in clear here either.
    func heldFields(_ call: HeldCall) -> JSONObject {
        let registration = store.registration(for: call.user)
        var held: JSONObject = [
            "call": .int(Int64(call.id)), "call_id": .string(call.callID), "user": .string(call.user),
        ]
        if seals(registration) { held["sealed"] = .bool(true) } else { held["caller"] = .string(call.caller) }
        held["registration_live"] = .bool(registrationLive(call.user))
        held["has_token"] = .bool(registration != nil)
        held["token_source"] = .string(registration?.source.rawValue ?? "none")
        return held
    }
}
