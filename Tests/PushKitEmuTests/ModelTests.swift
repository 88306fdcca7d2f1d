import PushKitEmu
import Testing

@Suite struct WakeDecisionTests {
    enum Input: Sendable {
        case start(live: Bool, token: Bool), qualifyOK, qualifyTimeout, qualifyFailed, qualifyFailedNoToken, ack, ackWindow, register, registerWait, ok,
            callerLeft, rejected, inviteTimeout
    }

    static func feed(_ machine: inout WakeDecision, _ input: Input) -> WakeAction {
        switch input {
        case .start(let live, let token): machine.start(registrationLive: live, hasToken: token)
        case .qualifyOK: machine.qualifyAnswered()
        case .qualifyTimeout: machine.qualifyTimedOut(hasToken: true)
        case .qualifyFailed: machine.qualifyFailed(hasToken: true)
        case .qualifyFailedNoToken: machine.qualifyFailed(hasToken: false)
        case .ack: machine.ackReceived()
        case .ackWindow: machine.ackWindowExpired()
        case .register: machine.registerReceived()
        case .registerWait: machine.registerWaitExpired()
        case .ok: machine.answered()
        case .callerLeft: machine.callerLeft()
        case .rejected: machine.pushRejected()
        case .inviteTimeout: machine.inviteTimedOut()
        }
    }

    /// docs/push-wake-rules.md server side, v2: each path's actions and final state.
    @Test(arguments: [
        (
            [Input.start(live: true, token: true), .qualifyOK, .ok],
            [WakeAction.qualify, .sendInvite(direct: true), .none], WakeDecision.State.answered
        ),
        (
            [.start(live: true, token: true), .qualifyTimeout, .ack, .register, .qualifyOK, .ok],
            [.qualify, .sendPush, .awaitRegister, .qualify, .sendInvite(direct: false), .none], .answered
        ),
        (
            [.start(live: false, token: true), .ackWindow, .ack], [.sendPush, .failover(.noAck), .none],
            .failedOver(.noAck)
        ),
        ([.start(live: false, token: false)], [.failover(.noToken)], .failedOver(.noToken)),
        (
            [.start(live: false, token: true), .rejected], [.sendPush, .failover(.apnsRejected)],
            .failedOver(.apnsRejected)
        ),
        (
            [.start(live: false, token: true), .ack, .registerWait],
            [.sendPush, .awaitRegister, .failover(.noRegister)],
            .failedOver(.noRegister)
        ),
        (
            [.start(live: false, token: true), .ack, .register, .qualifyTimeout, .register, .qualifyOK],
            [.sendPush, .awaitRegister, .qualify, .none, .qualify, .sendInvite(direct: false)], .inviteSent
        ),
        ([.start(live: false, token: true), .callerLeft, .ack], [.sendPush, .stop, .none], .cancelled),
        // A final non-2xx to the qualify is the qualify timeout, taken at once.
        (
            [.start(live: true, token: true), .qualifyFailed, .ack, .register, .qualifyOK],
            [.qualify, .sendPush, .awaitRegister, .qualify, .sendInvite(direct: false)], .inviteSent
        ),
        (
            [.start(live: true, token: false), .qualifyFailedNoToken], [.qualify, .failover(.noToken)],
            .failedOver(.noToken)
        ),
        (
            [.start(live: false, token: true), .ack, .register, .qualifyFailed, .qualifyTimeout, .register],
            [.sendPush, .awaitRegister, .qualify, .none, .none, .qualify], .qualifyingFresh
        ),
        (
            [.start(live: true, token: true), .qualifyOK, .qualifyFailed],
            [.qualify, .sendInvite(direct: true), .none], .ringingDirect
        ),
        (
            [.start(live: true, token: true), .qualifyOK, .callerLeft],
            [.qualify, .sendInvite(direct: true), .sendCancel],
            .cancelled
        ),
        (
            [.start(live: true, token: true), .qualifyOK, .inviteTimeout],
            [
                .qualify, .sendInvite(direct: true),
                .cancelAndFailover(.inviteTimeout),
            ], .failedOver(.inviteTimeout)
        ),
    ])
    func paths(_ inputs: [Input], _ actions: [WakeAction], _ final: WakeDecision.State) {
        var machine = WakeDecision()
        #expect(inputs.map { Self.feed(&machine, $0) } == actions)
        #expect(machine.state == final)
    }

    /// Option `gone_notice`: a caller who leaves after the ack is announced to the fresh contact,
    /// now (contact already fresh) or with the next REGISTER; without the option nothing is sent.
    @Test(arguments: [
        (
            true, [Input.start(live: false, token: true), .ack, .register, .callerLeft],
            [WakeAction.sendPush, .awaitRegister, .qualify, .sendGoneNotice], WakeDecision.State.cancelled
        ),
        (
            true, [.start(live: false, token: true), .ack, .callerLeft, .register],
            [.sendPush, .awaitRegister, .stop, .sendGoneNotice], .cancelled
        ),
        (
            true, [.start(live: false, token: true), .ack, .callerLeft, .registerWait],
            [.sendPush, .awaitRegister, .stop, .none], .cancelled
        ),
        (
            false, [.start(live: false, token: true), .ack, .callerLeft, .register],
            [.sendPush, .awaitRegister, .stop, .none], .cancelled
        ),
    ])
    func goneNotice(_ option: Bool, _ inputs: [Input], _ actions: [WakeAction], _ final: WakeDecision.State) {
        var machine = WakeDecision(goneNotice: option)
        #expect(inputs.map { Self.feed(&machine, $0) } == actions)
        #expect(machine.state == final)
    }

    /// Expiry cap/floor 300/30 s.
    @Test(arguments: [(0, 0), (1, 30), (29, 30), (30, 30), (120, 120), (300, 300), (301, 300), (3_600, 300)])
    func expiryClamp(_ requested: Int, _ granted: Int) {
        #expect(ExpiryPolicy().grant(requested) == granted)
    }
}

@Suite struct APNsModelTests {
    static let settings = EmulatorSettings()

    @Test(arguments: [
        (true, 0, APNsAction.deliver(push: 0, afterMs: 250)),
        (false, 0, .drop(push: 0)),
        (false, 60, .store(push: 0)),
    ])
    func expiration(_ online: Bool, _ expiration: Int, _ expected: APNsAction) {
        var apns = APNsModel(bundleID: "com.example.astra", environment: .production, settings: Self.settings)
        var request = APNsRequest()
        request.expirationSeconds = expiration
        let action = apns.submit(
            request, push: 0, now: 0, tokenValid: true, tokenEnvironment: .production,
            deviceOnline: online)
        #expect(action == expected)
    }

    /// Stored latest per topic: a newer push replaces the older; an expired one is dropped.
    @Test func storesOnlyLatestAndExpires() {
        var apns = APNsModel(bundleID: "com.example.astra", environment: .production, settings: Self.settings)
        var request = APNsRequest()
        request.expirationSeconds = 10
        _ = apns.submit(request, push: 0, now: 0, tokenValid: true, tokenEnvironment: .production, deviceOnline: false)
        _ = apns.submit(
            request, push: 1, now: 1_000, tokenValid: true, tokenEnvironment: .production, deviceOnline: false)
        #expect(apns.deviceCameOnline(now: 5_000) == .deliver(push: 1, afterMs: 250))
        #expect(apns.deviceCameOnline(now: 6_000) == .none)
        _ = apns.submit(request, push: 2, now: 0, tokenValid: true, tokenEnvironment: .production, deviceOnline: false)
        #expect(apns.deviceCameOnline(now: 10_001) == .drop(push: 2))
    }

    @Test(arguments: [
        (APNsEnvironment.sandbox, true, APNsRejection.badDeviceToken), (.production, false, .unregistered),
    ])
    func tokenProblems(_ environment: APNsEnvironment, _ valid: Bool, _ reason: APNsRejection) {
        var apns = APNsModel(bundleID: "com.example.astra", environment: .production, settings: Self.settings)
        let action = apns.submit(
            APNsRequest(), push: 0, now: 0, tokenValid: valid, tokenEnvironment: environment,
            deviceOnline: true)
        #expect(action == .reject(reason))
        #expect(!reason.isHeaderProblem)
    }

    /// Token lifecycle end to end: a sandbox token against production, or an invalidated token,
    /// fails over at once (no ack wait) and is not an R6 violation.
    @Test(arguments: ["sandbox", "invalidated"])
    func tokenLifecycleFailsOverFast(_ variant: String) {
        var scenario = BuiltInScenarios.killed
        if variant == "sandbox" {
            scenario.phone.environment = .sandbox
        } else {
            scenario.steps.insert(ScenarioStep(at: 500, .invalidateToken), at: 0)
        }
        let report = ScenarioRunner.run(scenario, policy: .correct)
        #expect(report.violations.isEmpty)
        #expect(report.outcomes == [.failedOver])
        let after = report.timeline.compactMap { if case .failover(_, _, let a, _) = $0.event { a } else { nil } }
        #expect(after == [0])
    }
}

@Suite struct TokenIssueTests {
    /// PushKit hands the token over at launch; the app uploads it, so a server that had none can
    /// push for the next call (issue → upload → push).
    @Test func tokenIssuedAtLaunchReachesTheServer() {
        var scenario = Scenario(name: "token-issue", summary: "")
        scenario.phone.app = .killed
        scenario.phone.tokenOnServer = false
        scenario.steps = [
            ScenarioStep(at: 1_000, .call), ScenarioStep(at: 2_000, .app, state: .foreground),
            ScenarioStep(at: 3_000, .app, state: .suspended), ScenarioStep(at: 5_000, .call, answerAfterMs: 1_000),
        ]
        let report = ScenarioRunner.run(scenario, policy: .correct)
        #expect(report.outcomes == [.failedOver, .connected])
        #expect(report.timeline.contains { if case .failover(0, .noToken, 0, _) = $0.event { true } else { false } })
        #expect(report.timeline.contains { if case .tokenUploaded = $0.event { $0.t == 2_040 } else { false } })
        #expect(report.violations.isEmpty)
    }
}
