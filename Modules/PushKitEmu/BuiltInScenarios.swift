/// The built-in scenarios of `astra-pushsim run NAME` and `check` (docs/man/astra-pushsim.md).
///
/// Each names the field situation it reproduces and the outcome the caller must see with the
/// correct policy. Times are virtual ms.
public enum BuiltInScenarios {
    /// Every built-in, in `check` order.
    public static var all: [Scenario] {
        [
            killed, background, foreground, locked, offline, reconnect, reconnectStored, deadPhone, tokenRotated,
            unknownOrigin, cancelBeforeWake, cancelAfterAck, answerBeforeInvite, answerThenGone, declineBeforeInvite,
            noInvite, strikeOut, message, sealedCall, sealedUnknownGateway, sealedWrongCallID, sealedTampered,
            sealedMissingKey, sealedLate, sealedTokenRevoked, sealedGrantRenewal, sealedGrantExpired,
        ]
    }

    /// The names, in `check` order.
    public static var names: [String] { all.map(\.name) }

    /// The built-in called `name`.
    public static func named(_ name: String) -> Scenario? { all.first { $0.name == name } }

    static func make(_ name: String, _ summary: String, app: AppState, _ build: (inout Scenario) -> Void) -> Scenario {
        var s = Scenario(name: name, summary: summary)
        s.phone.app = app
        build(&s)
        return s
    }

    /// Killed app woken by a push; INVITE claims the placeholder; answered.
    public static var killed: Scenario {
        make("killed", "app not running: push, cold launch, report, ack, REGISTER, held INVITE, answer", app: .killed) {
            $0.steps = [ScenarioStep(at: 1_000, .call, answerAfterMs: 3_000)]
            $0.expect = [.connected]
        }
    }

    /// Background app whose binding still looks live: qualify fails → push.
    public static var background: Scenario {
        make(
            "background", "binding looks live but the backgrounded app has no socket: qualify times out, push",
            app: .background
        ) {
            $0.phone.registered = true
            $0.steps = [ScenarioStep(at: 1_000, .call, answerAfterMs: 2_000)]
            $0.expect = [.connected]
        }
    }

    /// Foreground app: direct ring after a qualify that answers (step 1).
    public static var foreground: Scenario {
        make("foreground", "registered and qualified: direct ring, no push", app: .foreground) {
            $0.phone.registered = true
            $0.steps = [ScenarioStep(at: 1_000, .call, answerAfterMs: 1_500)]
            $0.expect = [.connected]
        }
    }

    /// Locked device: answer from the lock screen; credentials readable after first unlock.
    public static var locked: Scenario {
        make(
            "locked", "device locked: push, report, REGISTER with AfterFirstUnlock credentials, answer",
            app: .suspended
        ) {
            $0.phone.locked = true
            $0.steps = [ScenarioStep(at: 1_000, .call, answerAfterMs: 2_500)]
            $0.expect = [.connected]
        }
    }

    /// Device offline during the call: push dropped, failover after the ack window.
    public static var offline: Scenario {
        make(
            "offline", "device offline: apns-expiration 0 drops the push, failover after the ack window",
            app: .suspended
        ) {
            $0.phone.online = false
            $0.steps = [ScenarioStep(at: 1_000, .call, answerAfterMs: 1_000)]
            $0.expect = [.failedOver]
        }
    }

    /// Offline during the call, back online later with `apns-expiration: 0`: nothing rings.
    public static var reconnect: Scenario {
        make(
            "reconnect", "offline during the call, online after it: apns-expiration 0, so no ring on reconnect",
            app: .suspended
        ) {
            $0.phone.online = false
            $0.steps = [
                ScenarioStep(at: 1_000, .call, answerAfterMs: 1_000), ScenarioStep(at: 8_000, .hangup, call: 0),
                ScenarioStep(at: 20_000, .online),
            ]
            $0.expect = [.failedOver]
        }
    }

    /// A legacy server sets a non-zero expiration: APNs stores the push and delivers it on
    /// reconnect; the client must spot it is late (report, then end at once).
    public static var reconnectStored: Scenario {
        make(
            "reconnect-stored", "legacy apns-expiration 3600: stored push arrives on reconnect, must not ring",
            app: .suspended
        ) {
            $0.phone.online = false
            $0.server.request.expirationSeconds = 3_600
            $0.steps = [
                ScenarioStep(at: 1_000, .call, answerAfterMs: 1_000), ScenarioStep(at: 8_000, .hangup, call: 0),
                ScenarioStep(at: 20_000, .online),
            ]
            $0.expect = [.failedOver]
        }
    }

    /// Dead phone whose binding still looks live: qualify timeout + ack window ≤ bound.
    public static var deadPhone: Scenario {
        make(
            "dead-phone", "phone dead (battery), binding not expired: qualify timeout, push, no ack, failover",
            app: .killed
        ) {
            $0.phone.online = false
            $0.phone.registered = true
            $0.steps = [ScenarioStep(at: 1_000, .call)]
            $0.expect = [.failedOver]
        }
    }

    /// Token rotated while running; the server gets the new one; a later call wakes the phone.
    public static var tokenRotated: Scenario {
        make(
            "token-rotated", "PushKit rotates the token; the app uploads it; the next call pushes to the new one",
            app: .foreground
        ) {
            $0.phone.registered = true
            $0.steps = [
                ScenarioStep(at: 500, .rotateToken), ScenarioStep(at: 2_000, .app, state: .suspended),
                ScenarioStep(at: 5_000, .call, answerAfterMs: 2_000),
            ]
            $0.expect = [.connected]
        }
    }

    /// A VoIP push from an unknown server: report, then end at once; a real call still works.
    public static var unknownOrigin: Scenario {
        make(
            "unknown-origin", "push from an unknown server: report, end at once (failed); then a real call",
            app: .suspended
        ) {
            $0.steps = [
                ScenarioStep(at: 1_000, .rawPush, content: .call, origin: .unknown),
                ScenarioStep(at: 5_000, .call, answerAfterMs: 2_000),
            ]
            $0.expect = [.connected]
        }
    }

    /// The caller hangs up before the app woke: report, then end with remoteEnded.
    public static var cancelBeforeWake: Scenario {
        make(
            "cancel-before-wake", "caller hangs up during the cold launch: report, ack says gone, end remoteEnded",
            app: .killed
        ) {
            $0.steps = [
                ScenarioStep(at: 1_000, .call, answerAfterMs: 3_000), ScenarioStep(at: 1_300, .hangup, call: 0),
            ]
            $0.expect = [.cancelled]
        }
    }

    /// The caller leaves after the ack, before the INVITE; the server's gone notice ends the call.
    public static var cancelAfterAck: Scenario {
        make(
            "cancel-after-ack",
            "caller hangs up while the woken phone registers: gone notice (option) ends the placeholder",
            app: .killed
        ) {
            $0.server.goneNotice = true
            $0.steps = [
                ScenarioStep(at: 1_000, .call, answerAfterMs: 3_000), ScenarioStep(at: 2_000, .hangup, call: 0),
            ]
            $0.expect = [.cancelled]
        }
    }

    /// Answer tapped before the INVITE: the action waits for the 200 OK (no 10 s delay).
    public static var answerBeforeInvite: Scenario {
        make(
            "answer-before-invite", "user answers the placeholder before the INVITE: fulfil only after 200 OK",
            app: .killed
        ) {
            $0.steps = [ScenarioStep(at: 1_000, .call, answerAfterMs: 100)]
            $0.expect = [.connected]
        }
    }

    /// The user taps Answer on the placeholder the moment it rings, and then the ack response says
    /// the caller already left (hung up during the cold launch): the pending answer action must
    /// be failed and the call ended `remoteEnded` — ending the call alone leaves the action open
    /// until CallKit's timeout (R5 `answer_action_timed_out`). Fuzzing found this one first.
    public static var answerThenGone: Scenario {
        make(
            "answer-then-gone",
            "user taps Answer on the placeholder, then the ack response says the caller left: fail the answer, end remoteEnded",
            app: .killed
        ) {
            $0.steps = [ScenarioStep(at: 1_000, .call, answerAfterMs: 20), ScenarioStep(at: 1_100, .hangup, call: 0)]
            $0.expect = [.cancelled]
        }
    }

    /// Decline tapped on the placeholder before the INVITE: the INVITE is rejected, not rung again.
    public static var declineBeforeInvite: Scenario {
        make(
            "decline-before-invite", "user declines the placeholder before the INVITE: 603, no second ring",
            app: .killed
        ) {
            $0.steps = [ScenarioStep(at: 1_000, .call, declineAfterMs: 100)]
            $0.expect = [.failedOver]
        }
    }

    /// Acked, then the network dies: no INVITE, the placeholder must end (`failed`) in time.
    public static var noInvite: Scenario {
        make(
            "no-invite", "woken and acked, then offline: no INVITE, the placeholder times out with failed",
            app: .killed
        ) {
            $0.steps = [ScenarioStep(at: 1_000, .call), ScenarioStep(at: 2_000, .offline)]
            $0.expect = [.failedOver]
        }
    }

    /// Unusable pushes left unreported → strikes → blackout; the real call then never arrives.
    public static var strikeOut: Scenario {
        make(
            "strike-out", "three unreadable pushes, then a call: unreported pushes earn strikes and a blackout",
            app: .suspended
        ) {
            $0.steps = [
                ScenarioStep(at: 1_000, .rawPush, content: .unreadable),
                ScenarioStep(at: 3_000, .rawPush, content: .unreadable),
                ScenarioStep(at: 5_000, .rawPush, content: .unreadable),
                ScenarioStep(at: 8_000, .call, answerAfterMs: 2_000),
            ]
            $0.expect = [.connected]
        }
    }

    /// A chat message goes out as an ordinary alert (R3); `messages_via_voip` breaks it.
    public static var message: Scenario {
        make("message", "a chat message for a killed app: alert notification, not VoIP (R3)", app: .killed) {
            $0.steps = [ScenarioStep(at: 1_000, .message)]
            $0.expect = []
        }
    }

    // MARK: Sealed pushes (docs/pushkit-emulator.md "Sealed pushes")

    /// A gateway that seals: the app is given its call key at launch, opens the caller, rings.
    public static var sealedCall: Scenario {
        make(
            "sealed-call", "sealing gateway: the app opens the caller with its call key, shows it, answer",
            app: .killed
        ) {
            $0.server.sealed = true
            $0.steps = [ScenarioStep(at: 1_000, .call, answerAfterMs: 3_000)]
            $0.expect = [.connected]
        }
    }

    static func sealedFault(_ name: String, _ summary: String, _ fault: SealFault) -> Scenario {
        make(name, summary, app: .suspended) {
            $0.server.sealed = true
            $0.steps = [
                ScenarioStep(at: 1_000, .sealedPush, sealFault: fault),
                ScenarioStep(at: 5_000, .call, answerAfterMs: 2_000),
            ]
            $0.expect = [.connected]
        }
    }

    /// A sealed push from a gateway the phone never joined: report as the app, end at once.
    public static var sealedUnknownGateway: Scenario {
        sealedFault(
            "sealed-unknown-gateway",
            "sealed push from a gateway the phone never joined: report as the app's name, end at once; then a real call",
            .unknownGateway)
    }

    /// A blob sealed for another call (replay): it does not open for this call ID.
    public static var sealedWrongCallID: Scenario {
        sealedFault(
            "sealed-wrong-call-id",
            "sealed blob made for another call (replay): does not open for this call ID, report as the app, end; then a real call",
            .wrongCallID)
    }

    /// A blob changed on the way: the tag does not verify.
    public static var sealedTampered: Scenario {
        sealedFault(
            "sealed-tampered",
            "sealed blob with one byte changed: the tag fails, report as the app, end at once; then a real call",
            .tampered)
    }

    /// From a gateway the phone joined but whose key did not survive: the app has no key for it.
    public static var sealedMissingKey: Scenario {
        sealedFault(
            "sealed-missing-key",
            "sealed push from a joined gateway whose call key is gone: report as the app, end at once; then a real call",
            .missingKey)
    }

    /// Opens, but the gateway's end time passed before it arrived.
    public static var sealedLate: Scenario {
        sealedFault(
            "sealed-late", "sealed push past the gateway's end time: report as the app, end at once; then a real call",
            .late)
    }

    /// iOS takes the VoIP token back while the app runs: delete it and tell the gateway to stop.
    public static var sealedTokenRevoked: Scenario {
        make(
            "sealed-token-revoked",
            "token invalidated on a phone that joined a sealing gateway: delete the token, stop the gateway's grant; a direct call still rings",
            app: .foreground
        ) {
            $0.server.sealed = true
            $0.phone.registered = true
            $0.steps = [ScenarioStep(at: 1_000, .invalidateToken), ScenarioStep(at: 3_000, .call, answerAfterMs: 1_500)]
            $0.expect = [.connected]
        }
    }

    /// Virtual days pass on a phone whose gateway holds a 14-day grant from day 0: launches on day
    /// 1 (13 days left: nothing owed), day 8 (6 left: renew once), and again 4 minutes later (14
    /// left: a second grant would be a storm); then a sealed call rings.
    public static var sealedGrantRenewal: Scenario {
        let day = CallGrant.dayMs
        return make(
            "sealed-grant-renewal",
            "days pass on a phone with a 14-day call grant: renew once at the day-8 launch (< 7 days left), not at the relaunch minutes later; a sealed call rings",
            app: .killed
        ) {
            $0.server.sealed = true
            $0.steps = [
                ScenarioStep(at: day, .app, state: .foreground),
                ScenarioStep(at: day + 60_000, .app, state: .killed),
                ScenarioStep(at: 8 * day, .app, state: .foreground),
                ScenarioStep(at: 8 * day + 60_000, .app, state: .killed),
                ScenarioStep(at: 8 * day + 300_000, .app, state: .foreground),
                ScenarioStep(at: 8 * day + 360_000, .app, state: .killed),
                ScenarioStep(at: 8 * day + 420_000, .call, answerAfterMs: 1_500),
            ]
            $0.expect = [.connected]
        }
    }

    /// The grant runs out while the app is not launched: the gateway stops pushing and the call
    /// fails over. The next launch renews it (expired: < 7 days left); a call 5 minutes later wakes
    /// the killed app (a launch that must not renew again) and rings.
    public static var sealedGrantExpired: Scenario {
        let expiry = CallGrant.askLifetimeMs
        return make(
            "sealed-grant-expired",
            "the 14-day call grant expires unrenewed: the gateway stops pushing (fail over); the next launch renews; a sealed call rings again",
            app: .killed
        ) {
            $0.server.sealed = true
            $0.steps = [
                ScenarioStep(at: expiry + 3_600_000, .call, answerAfterMs: 1_500),
                ScenarioStep(at: expiry + 7_200_000, .app, state: .foreground),
                ScenarioStep(at: expiry + 7_260_000, .app, state: .killed),
                ScenarioStep(at: expiry + 7_500_000, .call, answerAfterMs: 1_500),
            ]
            $0.expect = [.failedOver, .connected]
        }
    }
}
