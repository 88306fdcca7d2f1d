import PushKitEmu

/// One live scenario: the phone's starting state and a script of wall-clock steps (ms after
/// the set-up), with the outcomes the correct policy must reach. Built-ins mirror the virtual
/// scenarios of the same name; where the phone sees nothing in the virtual one (offline,
/// reconnect, dead-phone), the live one adds a second call once the phone is back, so its app
/// code is exercised and judged too.
public struct LiveScenario: Sendable {
    /// What a step does.
    public enum Action: Sendable, Hashable {
        /// The caller dials the phone; the user answers `answerAfterMs` after the first ring
        /// (nil = never); the caller hangs up `talkMs` after the answer.
        case call(answerAfterMs: Int64?, talkMs: Int64)
        /// The caller dials the phone; the user taps Decline `afterMs` after the first ring.
        case declinedCall(afterMs: Int64)
        /// The caller hangs up call `call` (CANCEL before the answer).
        case hangup(call: Int32)
        /// The device loses the network (APNs connection and SIP transports closed).
        case offline
        /// The device is back online.
        case online
        /// PushKit rotates the device's token (the old one is retired at APNs: 410).
        case rotateToken
    }

    /// One step at `at` ms after the set-up.
    public struct Step: Sendable, Hashable {
        public var at: Int64
        public var action: Action
        public init(at: Int64, _ action: Action) {
            self.at = at
            self.action = action
        }
    }

    public var name: String
    public var summary: String
    /// App state at the start: killed (no process, unregistered), background (registered, then its
    /// flow lost), suspended (process in memory, no flow).
    public var app: AppState
    public var locked = false
    public var online = true
    /// The phone registered before dying (its binding is stale in the registrar): dead-phone.
    public var staleBinding = false
    public var steps: [Step]
    public var expect: [CallOutcome]
    /// Cold-launch delay of a killed app (ms); cancel-before-wake needs a slow launch.
    public var launchFromKilledMs: Int64 = 0
    /// The run lasts at least this long after the last step (ms), so late phone work is seen.
    public var settleMs: Int64 = 300
    /// The woken app's REGISTER leaves this long after its `register` op (ms): a slow network
    /// start (radio wake-up, captive DNS). cancel-after-ack needs the gap to hang up in.
    public var registerDelayMs: Int64 = 0
    /// The gateway announces a caller who left after the ack (`astra-wakegw --gone-notice`),
    /// as the virtual scenario's `server.gone_notice`.
    public var goneNotice = false

    public init(name: String, summary: String, app: AppState, steps: [Step], expect: [CallOutcome]) {
        self.name = name
        self.summary = summary
        self.app = app
        self.steps = steps
        self.expect = expect
    }

    /// This scenario when every sealed push reaches the phone changed (`--seal-fault`): the
    /// phone must not trust any of them (R5: reported as the app's name, ended, no ack), so no
    /// call connects — the gateway fails each over to the caller's final response (no ack).
    public var withUntrustedSeals: LiveScenario {
        var s = self
        s.expect = expect.map { _ in .failedOver }
        return s
    }

    /// The time after which the run stops waiting for calls to end (ms after set-up).
    public var horizonMs: Int64 { (steps.map(\.at).max() ?? 0) + 12_000 }
}

/// The built-in live scenarios (`astra-pushsim live NAME`).
public enum LiveScenarios {
    /// `ackWindowMs`: the gateway's ack window, so follow-up calls start after the failover.
    public static func all(ackWindowMs: Int64 = 2_000) -> [LiveScenario] {
        [
            killed, background, locked, offline(ackWindowMs), reconnect(ackWindowMs), deadPhone(ackWindowMs),
            cancelBeforeWake, cancelAfterAck, answerBeforeInvite, declineBeforeInvite, tokenRotated,
        ]
    }

    /// The names, in order.
    public static var names: [String] { all().map(\.name) }

    /// The built-in called `name`.
    public static func named(_ name: String, ackWindowMs: Int64 = 2_000) -> LiveScenario? {
        all(ackWindowMs: ackWindowMs).first { $0.name == name }
    }

    static let talk: Int64 = 1_500

    public static var killed: LiveScenario {
        LiveScenario(
            name: "killed",
            summary:
                "app not running, unregistered: push, launch, report, ack, REGISTER over WSS, held INVITE, 180, answer",
            app: .killed, steps: [.init(at: 200, .call(answerAfterMs: 300, talkMs: talk))], expect: [.connected])
    }

    public static var background: LiveScenario {
        LiveScenario(
            name: "background",
            summary: "registered, then the flow is lost in the background: qualify fails, push, re-REGISTER, answer",
            app: .background, steps: [.init(at: 200, .call(answerAfterMs: 300, talkMs: talk))], expect: [.connected])
    }

    public static var locked: LiveScenario {
        var s = LiveScenario(
            name: "locked", summary: "suspended on a locked device: push, report, REGISTER (AfterFirstUnlock), answer",
            app: .suspended, steps: [.init(at: 200, .call(answerAfterMs: 300, talkMs: talk))], expect: [.connected])
        s.locked = true
        return s
    }

    public static func offline(_ ack: Int64) -> LiveScenario {
        var s = LiveScenario(
            name: "offline",
            summary:
                "device offline: no APNs connection, push dropped (expiration 0), failover; back online, next call wakes it",
            app: .suspended,
            steps: [
                .init(at: 200, .call(answerAfterMs: 300, talkMs: talk)), .init(at: 200 + ack + 800, .online),
                .init(at: 200 + ack + 1_300, .call(answerAfterMs: 300, talkMs: talk)),
            ], expect: [.failedOver, .connected])
        s.online = false
        return s
    }

    public static func reconnect(_ ack: Int64) -> LiveScenario {
        LiveScenario(
            name: "reconnect",
            summary:
                "registered phone goes offline, a call fails over; on reconnect nothing rings for it; the next call does",
            app: .background,
            steps: [
                .init(at: 100, .offline), .init(at: 300, .call(answerAfterMs: 300, talkMs: talk)),
                .init(at: 300 + ack + 800, .online),
                .init(at: 300 + ack + 1_800, .call(answerAfterMs: 300, talkMs: talk)),
            ], expect: [.failedOver, .connected])
    }

    public static func deadPhone(_ ack: Int64) -> LiveScenario {
        var s = LiveScenario(
            name: "dead-phone",
            summary:
                "phone died (offline, killed) with its binding still in the registrar: qualify, push, no ack, fast failover; revived, next call wakes it",
            app: .killed,
            steps: [
                .init(at: 200, .call(answerAfterMs: 300, talkMs: talk)), .init(at: 200 + ack + 1_200, .online),
                .init(at: 200 + ack + 1_700, .call(answerAfterMs: 300, talkMs: talk)),
            ], expect: [.failedOver, .connected])
        s.online = false
        s.staleBinding = true
        return s
    }

    public static var cancelBeforeWake: LiveScenario {
        var s = LiveScenario(
            name: "cancel-before-wake",
            summary: "caller hangs up during the cold launch: report, ack says gone, end remoteEnded, nothing rings",
            app: .killed,
            steps: [.init(at: 200, .call(answerAfterMs: 3_000, talkMs: talk)), .init(at: 500, .hangup(call: 0))],
            expect: [.cancelled])
        s.launchFromKilledMs = 1_000
        s.settleMs = 2_000
        return s
    }

    /// The caller hangs up after the ack, while the woken phone registers (its network is slow to
    /// start: REGISTER 1 s after the op). The gateway's gone notice (INVITE + CANCEL to the fresh
    /// contact) ends the placeholder `remoteEnded` at once instead of `failed` at its timeout.
    public static var cancelAfterAck: LiveScenario {
        var s = LiveScenario(
            name: "cancel-after-ack",
            summary:
                "caller hangs up while the woken phone registers: gone notice (INVITE + CANCEL) ends the placeholder remoteEnded",
            app: .killed,
            steps: [.init(at: 200, .call(answerAfterMs: 3_000, talkMs: talk)), .init(at: 700, .hangup(call: 0))],
            expect: [.cancelled])
        s.registerDelayMs = 1_000
        s.goneNotice = true
        s.settleMs = 2_000
        return s
    }

    /// The user taps Answer on the placeholder before the INVITE is in: the answer action stays
    /// pending and is fulfilled only once the 200 OK has gone out (R5), with no second call.
    public static var answerBeforeInvite: LiveScenario {
        tapBeforeInvite(
            "answer-before-invite",
            "user answers the placeholder before the INVITE: the action is fulfilled only after the 200 OK",
            .call(answerAfterMs: 100, talkMs: talk), expect: .connected)
    }

    /// The user taps Decline on the placeholder before the INVITE: the INVITE, once in, is
    /// rejected with 603 and never rings a second time (R5); the caller gets the 603.
    public static var declineBeforeInvite: LiveScenario {
        tapBeforeInvite(
            "decline-before-invite", "user declines the placeholder before the INVITE: 603 to the INVITE, no second ring",
            .declinedCall(afterMs: 100), expect: .failedOver)
    }

    /// A killed phone whose woken app is slow on the network (REGISTER 400 ms after the op), so
    /// the user's tap 100 ms after the report (`call`) lands before the INVITE.
    static func tapBeforeInvite(_ name: String, _ summary: String, _ call: LiveScenario.Action, expect: CallOutcome)
        -> LiveScenario
    {
        var s = LiveScenario(name: name, summary: summary, app: .killed, steps: [.init(at: 200, call)], expect: [expect])
        s.registerDelayMs = 400
        return s
    }

    /// PushKit rotates the token of a registered app that then loses its flow in the background;
    /// the app uploads the new token, so the next call's push goes to it (the old token would get
    /// 410 Unregistered) and wakes the phone.
    public static var tokenRotated: LiveScenario {
        LiveScenario(
            name: "token-rotated",
            summary: "PushKit rotates the token; the app uploads it; the next call pushes to the new one and connects",
            app: .background,
            steps: [.init(at: 100, .rotateToken), .init(at: 600, .call(answerAfterMs: 300, talkMs: talk))],
            expect: [.connected])
    }
}
