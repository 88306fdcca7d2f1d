import AstraJSON
import SIPCore
import ToolSupport

/// A wake timeline (`astra-pushsim run|live` JSON Lines) as a sequence diagram with one lane
/// per actor — caller, Kamailio, the gateway (the server's wake decision), APNs, iOS and the
/// app — the picture people draw of a push wake. Every documented event name
/// (docs/man/astra-pushsim.md) has a place: an arrow between two actors or a note on one;
/// a violation is a red note on the actor that broke its rule, naming the rule, and the
/// verdict is the legend.
enum WakeDiagram {
    enum Lane: Int, CaseIterable {
        case caller, kamailio, gateway, apns, ios, app

        var title: SequenceDiagram.Lane {
            switch self {
            case .caller: SequenceDiagram.Lane("Caller", subtitle: "SIP phone")
            case .kamailio: SequenceDiagram.Lane("Kamailio", subtitle: "registrar, proxy")
            case .gateway: SequenceDiagram.Lane("Gateway", subtitle: "wake decision")
            case .apns: SequenceDiagram.Lane("APNs", subtitle: "push service")
            case .ios: SequenceDiagram.Lane("iOS", subtitle: "PushKit, CallKit")
            case .app: SequenceDiagram.Lane("App", subtitle: "the code under test")
            }
        }
    }

    /// The diagram of `lines` (one JSON object each; other lines are skipped).
    static func diagram(lines: [String], title: String) -> SequenceDiagram {
        var diagram = SequenceDiagram(title: title, lanes: Lane.allCases.map(\.title))
        for line in lines {
            guard let event = try? JSONValue.parse(line), case .string(let name)? = event["event"] else { continue }
            let t = number(event["t"]).map { "\($0) ms" } ?? ""
            if name == "verdict" {
                diagram.legend += legend(event)
                continue
            }
            let (mark, label, style) = step(name, event)
            diagram.steps.append(SequenceDiagram.Step(time: t, mark: mark, label: label, style: style))
        }
        return diagram
    }

    private static func arrow(_ from: Lane, _ to: Lane) -> SequenceDiagram.Mark {
        .arrow(from: from.rawValue, to: to.rawValue)
    }

    private static func note(_ lane: Lane) -> SequenceDiagram.Mark { .note(lane: lane.rawValue) }

    /// Where an event goes and what it says.
    static func step(_ name: String, _ e: JSONValue) -> (SequenceDiagram.Mark, String, SequenceDiagram.Style) {
        func s(_ key: String) -> String { string(e[key]) ?? "" }
        func n(_ key: String) -> String { number(e[key]).map(String.init) ?? "?" }
        switch name {
        case "call_start": return (arrow(.caller, .kamailio), "INVITE (call \(n("call")))", .normal)
        case "qualify_sent": return (arrow(.gateway, .app), "OPTIONS (is the app there?)", .normal)
        case "qualify_ok": return (arrow(.app, .gateway), "200 OK (OPTIONS)", .normal)
        case "qualify_timeout": return (note(.gateway), "no answer to OPTIONS", .muted)
        case "invite_sent":
            return (arrow(.gateway, .app), e["direct"] == .bool(true) ? "INVITE (direct)" : "INVITE (released)", .normal)
        case "invite_received": return (note(.app), "INVITE reaches the app", .normal)
        case "sip_lost": return (note(.app), "SIP lost: no app running", .muted)
        case "push_sent":
            return (arrow(.gateway, .apns), "VoIP push \(s("content")), expiration \(n("apns_expiration"))", .normal)
        case "alert_sent": return (arrow(.gateway, .apns), "alert notification", .normal)
        case "apns_rejected": return (arrow(.apns, .gateway), "rejected: \(s("reason"))", .error)
        case "apns_stored": return (note(.apns), "stored: device offline", .normal)
        case "apns_dropped": return (note(.apns), "dropped: device offline", .muted)
        case "apns_lost": return (note(.apns), "push lost (never delivered)", .muted)
        case "apns_delivered": return (arrow(.apns, .ios), "push delivered (after \(n("age_ms")) ms)", .normal)
        case "push_suppressed": return (note(.ios), "push not delivered: R2 blackout", .error)
        case "app_launch": return (arrow(.ios, .app), "launch the app (was \(s("from")))", .normal)
        case "app_process_started": return (arrow(.ios, .app), "start the app process (pid \(n("pid")))", .normal)
        case "app_process_ended": return (note(.app), "app process ended: \(s("reason"))", .muted)
        case "launch_delay": return (note(.ios), "launch takes \(n("ms")) ms", .muted)
        case "handler_start": return (note(.app), "PushKit handler starts", .normal)
        case "handler_return":
            return (note(.app), e["reported"] == .bool(true) ? "handler returns" : "handler returns, no call reported",
                    e["reported"] == .bool(true) ? .normal : .error)
        case "ack_sent": return (arrow(.app, .gateway), "POST /voip-push-ack", .normal)
        case "ack_received": return (note(.gateway), "ack received", .normal)
        case "ack_window_expired": return (note(.gateway), "no ack within the window", .normal)
        case "ack_response":
            return (arrow(.gateway, .app), e["call_active"] == .bool(true) ? "ack: call active" : "ack: call gone", .normal)
        case "callkit_report": return (arrow(.app, .ios), "reportNewIncomingCall (uuid \(n("uuid")))", .normal)
        case "callkit_update": return (arrow(.app, .ios), "CallKit update (uuid \(n("uuid")))", .normal)
        case "callkit_end": return (arrow(.app, .ios), "CallKit end: \(s("reason"))", .normal)
        case "invite_claimed": return (note(.app), "INVITE bound to CallKit call \(n("uuid"))", .normal)
        case "user_answer": return (arrow(.ios, .app), "user taps Answer", .normal)
        case "user_decline": return (arrow(.ios, .app), "user taps Decline", .normal)
        case "decline_sent": return (arrow(.app, .kamailio), "603 Decline", .normal)
        case "answer_fulfilled": return (arrow(.app, .ios), "answer action fulfilled", .normal)
        case "answer_failed": return (arrow(.app, .ios), "answer action failed", .error)
        case "answer_timed_out": return (note(.ios), "answer action timed out", .error)
        case "ok_sent": return (arrow(.app, .kamailio), "200 OK (INVITE)", .normal)
        case "call_connected":
            return (arrow(.kamailio, .caller), "200 OK: connected (answer +\(n("answer_delay_ms")) ms)", .normal)
        case "app_killed": return (arrow(.ios, .app), "kill the app (strike \(n("strikes")))", .error)
        case "blackout": return (note(.ios), "VoIP pushes stopped (R2, \(n("strikes")) strikes)", .error)
        case "fetch_sent": return (arrow(.app, .gateway), "fetch call details", .normal)
        case "register_sent": return (arrow(.app, .kamailio), "REGISTER", .normal)
        case "keychain_denied": return (note(.app), "keychain locked: no credentials", .error)
        case "register_received": return (note(.kamailio), "REGISTER accepted (\(n("granted_expires")) s)", .normal)
        case "registration_result":
            return e["success"] == .bool(true)
                ? (arrow(.kamailio, .app), "200 OK (REGISTER)", .normal)
                : (arrow(.kamailio, .app), "REGISTER failed", .error)
        case "phone_registered": return (arrow(.kamailio, .app), "200 OK (REGISTER, \(n("granted_expires")) s)", .normal)
        case "register_wait_expired": return (note(.gateway), "no REGISTER in time", .normal)
        case "caller_left": return (arrow(.caller, .kamailio), "CANCEL (caller hangs up)", .normal)
        case "caller_ringing":
            return (arrow(.kamailio, .caller), "180 Ringing (push to ring \(n("push_to_ring_ms")) ms)", .normal)
        case "caller_final": return (arrow(.kamailio, .caller), "final answer \(n("status")) \(s("sip_reason"))", .normal)
        case "cancel_sent": return (arrow(.gateway, .app), "CANCEL", .normal)
        case "cancel_received": return (note(.app), "CANCEL received", .normal)
        case "gone_notice_sent": return (arrow(.gateway, .app), "call-gone notice", .normal)
        case "gone_notice_received": return (note(.app), "call-gone notice received", .normal)
        case "failover":
            let late = (number(e["after_ms"]) ?? 0) > (number(e["bound_ms"]) ?? .max)
            return (arrow(.gateway, .caller), "failover: \(s("reason")) after \(n("after_ms")) ms (bound \(n("bound_ms")))",
                    late ? .error : .normal)
        case "violation": return (note(violator(s("rule"))), "✗ \(s("rule")) \(s("kind")): \(s("detail"))", .error)
        case "connectivity":
            return (note(.ios), e["online"] == .bool(true) ? "network back" : "network lost", .muted)
        case "app_state": return (note(.ios), "app is \(s("state"))", .muted)
        case "device_lock": return (note(.ios), e["locked"] == .bool(true) ? "device locked" : "device unlocked", .muted)
        case "token_issued": return (note(.ios), "new push token", .muted)
        case "token_invalidated": return (note(.ios), "push token invalidated", .muted)
        case "token_uploaded": return (arrow(.app, .gateway), "upload push token", .normal)
        case "token_deleted": return (arrow(.app, .gateway), "delete push token", .normal)
        case "client_error", "phone_error": return (note(.app), "\(name): \(s("detail"))\(s("error"))", .error)
        default: return (note(.app), name, .muted)
        }
    }

    /// The actor a rule binds (docs/pushkit-emulator.md): the server for WAKE, iOS for R2's
    /// blackout, the app for the others.
    static func violator(_ rule: String) -> Lane {
        switch rule {
        case "WAKE", "R6": .gateway
        case "R2": .ios
        default: .app
        }
    }

    /// The verdict line as legend lines: the outcome, then the rules broken.
    static func legend(_ verdict: JSONValue) -> [SequenceDiagram.Note] {
        let ok = verdict["ok"] == .bool(true)
        let scenario = string(verdict["scenario"]) ?? "?"
        let policy = string(verdict["policy"]) ?? "?"
        var notes: [SequenceDiagram.Note] = []
        if ok {
            notes.append(.init("✔ \(scenario) with the \(policy) policy: no rule broken"))
        } else {
            let rules = strings(verdict["rules"]).joined(separator: ", ")
            let count = number(verdict["violations"]) ?? 0
            notes.append(.init("✗ \(scenario) with the \(policy) policy: broke \(rules) (\(count) violations, in red)", style: .error))
        }
        let outcomes = strings(verdict["outcomes"]).joined(separator: ", ")
        let expected = strings(verdict["expected"]).joined(separator: ", ")
        notes.append(.init("outcome: \(outcomes.isEmpty ? "none" : outcomes); expected: \(expected.isEmpty ? "none" : expected)"))
        return notes
    }

    static func string(_ value: JSONValue?) -> String? { value?.stringValue }

    static func number(_ value: JSONValue?) -> Int64? { value?.int64Value }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap { string($0) }
    }
}
