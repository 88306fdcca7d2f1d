/// The server side of the simulation: scripted steps, the wake decision's actions, APNs.
extension Simulation {
    mutating func runStep(_ step: ScenarioStep) {
        // An app that already ran when the run began has read its call keys by now.
        if phone.appRunning { deliverCallKeys() }
        switch step.action {
        case .call:
            let c = Int32(calls.count)
            calls.append(
                ServerCall(
                    machine: WakeDecision(goneNotice: scenario.server.goneNotice),
                    startedAt: now, answerAfterMs: step.answerAfterMs ?? -1,
                    declineAfterMs: step.declineAfterMs ?? -1))
            record(.callStart(call: c))
            let action = calls[Int(c)].machine.start(registrationLive: regExpiresAt > now, hasToken: canPush)
            perform(action, call: c)
        case .hangup:
            guard let index = step.call, index >= 0, index < calls.count else { return }
            let c = Int32(index)
            if calls[index].machine.isOver || calls[index].machine.state == .answered { return }
            record(.callerLeft(call: c))
            perform(calls[index].machine.callerLeft(), call: c)
        case .offline:
            phone.online = false
            phone.sipConnected = false
            record(.connectivity(online: false))
            notifyConnectivity()
        case .online:
            phone.online = true
            record(.connectivity(online: true))
            applyAPNs(apns.deviceCameOnline(now: now), call: -1)
            notifyConnectivity()
        case .app: transition(to: step.state ?? .foreground)
        case .lock:
            phone.locked = true
            record(.deviceLock(locked: true))
        case .unlock:
            phone.locked = false
            record(.deviceLock(locked: false))
        case .rotateToken:
            phone.rotateToken(PushToken(using: &rng))
            record(.tokenIssued(token: phone.token))
            if phone.appRunning {
                beginCallback()
                policy.didUpdatePushToken(&ctx)
                applyOps()
            }
        case .invalidateToken:
            phone.invalidateToken()
            record(.tokenInvalidated)
            if phone.appRunning {
                beginCallback()
                policy.didInvalidatePushToken(&ctx)
                applyOps()
                checkGrantsStopped()
            }
        case .message:
            if scenario.server.messagesViaVoIP {
                _ = sendPush(call: -1, content: .message, origin: .known, fromServer: true)
            } else {
                record(.alertSent)
            }
        case .rawPush:
            _ = sendPush(
                call: -1, content: step.content ?? .unreadable, origin: step.origin ?? .known,
                fromServer: false)
        case .sealedPush:
            let sealed = rawSealedPush(step.sealFault ?? .none, push: Int32(pushes.count))
            _ = sendPush(call: -1, content: .call, origin: .known, fromServer: false, sealed: sealed)
        }
    }

    /// The sealed part of server call `c`'s push, or nil when the gateway does not seal.
    mutating func sealedCallPush(call c: Int32) -> SealedPush? {
        guard scenario.server.sealed, let gateway = keychain.gateway(SealedGateway.mainID) else { return nil }
        return seal(call: c, callID: SealedGateway.callID(call: c), key: gateway.key, hash: gateway.hash, endMs: now + SealedGateway.ringWindowMs)
    }

    mutating func seal(call c: Int32, callID: String, key: [UInt8], hash: String, endMs: Int64, sealedFor: String? = nil)
        -> SealedPush
    {
        let plain = CallKeychain.callerPlaintext(user: "100\(max(c, 0))", name: "Caller \(max(c, 0))", endMs: endMs)
        let nonce = SealedGateway.bytes(12, using: &sealRNG)
        let blob = sealing.seal(plain, key: key, callID: sealedFor ?? callID, nonce: nonce)
        return SealedPush(gatewayHash: hash, endMs: endMs, callID: callID, blob: blob)
    }

    /// A sealed push no server call stands behind, with `fault` (a `sealed_push` step).
    mutating func rawSealedPush(_ fault: SealFault, push p: Int32) -> SealedPush? {
        if keychain.gateway(SealedGateway.mainID) == nil {
            keychain.join(SealedGateway.mainID, key: SealedGateway.key(using: &sealRNG), sealing: sealing)
        }
        let main = keychain.gateway(SealedGateway.mainID)!
        let callID = SealedGateway.rawCallID(push: p)
        let end = now + SealedGateway.ringWindowMs
        switch fault {
        case .none:
            return seal(call: -1, callID: callID, key: main.key, hash: main.hash, endMs: end)
        case .unknownGateway:
            let key = SealedGateway.key(using: &sealRNG)
            let hash = sealing.gatewayHash(key: key, gatewayID: SealedGateway.strangerID)
            return seal(call: -1, callID: callID, key: key, hash: hash, endMs: end)
        case .wrongCallID:
            return seal(call: -1, callID: callID, key: main.key, hash: main.hash, endMs: end, sealedFor: SealedGateway.callID(call: 0))
        case .tampered:
            var sealed = seal(call: -1, callID: callID, key: main.key, hash: main.hash, endMs: end)
            sealed.blob[sealed.blob.count / 2] ^= 0x01
            return sealed
        case .missingKey:
            if keychain.gateway(SealedGateway.restoredID) == nil {
                keychain.join(SealedGateway.restoredID, key: SealedGateway.key(using: &sealRNG), sealing: sealing, keyPresent: false)
            }
            let restored = keychain.gateway(SealedGateway.restoredID)!
            return seal(call: -1, callID: callID, key: restored.key, hash: restored.hash, endMs: end)
        case .late:
            return seal(call: -1, callID: callID, key: main.key, hash: main.hash, endMs: now - SealedGateway.lateByMs)
        }
    }

    mutating func notifyConnectivity() {
        guard phone.appRunning else { return }
        beginCallback()
        policy.connectivityChanged(online: phone.online, &ctx)
        applyOps()
    }

    /// Executes one wake-decision action for server call `c`.
    mutating func perform(_ action: WakeAction, call c: Int32) {
        switch action {
        case .none, .stop:
            break
        case .qualify:
            record(.qualifySent(call: c))
            schedule(.qualifyArrives(c), after: settings.networkOneWayMs)
            schedule(.qualifyTimeout(c), after: settings.qualifyTimeoutMs)
        case .sendInvite(let direct):
            record(.inviteSent(call: c, direct: direct))
            schedule(.inviteArrives(c), after: settings.networkOneWayMs)
            schedule(.inviteTimeout(c), after: settings.inviteTimeoutMs)
        case .sendPush:
            let sealed = sealedCallPush(call: c)
            let p = sendPush(call: c, content: .call, origin: .known, fromServer: true, sealed: sealed)
            calls[Int(c)].push = p
            schedule(.ackWindow(c), after: settings.ackWindowMs)
        case .awaitRegister:
            schedule(.registerWait(c), after: settings.registerWaitMs)
            let p = calls[Int(c)].push
            if p >= 0, lastRegisterAt >= pushes[Int(p)].sentAt {
                // The REGISTER overtook the ack (sent before it): it is already fresh.
                perform(calls[Int(c)].machine.registerReceived(), call: c)
            }
        case .cancelAndFailover(let reason):
            perform(.sendCancel, call: c)
            perform(.failover(reason), call: c)
        case .failover(let reason):
            let after = now - calls[Int(c)].startedAt
            record(.failover(call: c, reason: reason, afterMs: after, boundMs: settings.failoverBoundMs))
            checker.failover(reason, call: c, afterMs: after, t: now)
        case .sendGoneNotice:
            record(.goneNoticeSent(call: c))
            schedule(.goneNoticeArrives(c), after: settings.networkOneWayMs)
        case .sendCancel:
            record(.cancelSent(call: c))
            schedule(.cancelArrives(c), after: settings.networkOneWayMs)
        }
    }

    /// Sends a VoIP push through APNs; returns its push-id.
    mutating func sendPush(
        call c: Int32, content: PushContent, origin: PushOrigin, fromServer: Bool, sealed: SealedPush? = nil
    ) -> Int32 {
        let p = Int32(pushes.count)
        pushes.append(
            VoIPPush(
                pushID: p, call: c, content: content, origin: origin, sentAt: now,
                mustReport: scenario.phone.mustReport, sealed: sealed))
        handlerStartedAt.append(-1)
        sealVerdicts.append(nil)
        var request = scenario.server.request
        var token = phone.token
        var environment = phone.environment
        if fromServer {
            // No token: the wake decision already failed over; a message simply is not sent.
            guard let stored = serverToken else { return p }
            token = stored
            environment = serverTokenEnvironment
            checker.voipPushSent(content: content, push: p, t: now)
        } else {
            request = APNsRequest()
            request.topic = scenario.server.bundleID + ".voip"
        }
        record(.pushSent(call: c, push: p, content: content, expiration: request.expirationSeconds, token: token))
        let action = apns.submit(
            request, push: p, now: now, tokenValid: token == phone.token && phone.tokenValid,
            tokenEnvironment: environment, deviceOnline: phone.online)
        applyAPNs(action, call: c)
        return p
    }

    mutating func applyAPNs(_ action: APNsAction, call c: Int32) {
        switch action {
        case .none: break
        case .reject(let reason):
            let p = Int32(pushes.count - 1)
            record(.apnsRejected(push: p, reason: reason))
            checker.apnsRejected(reason, call: c, push: p, t: now)
            if c >= 0 { perform(calls[Int(c)].machine.pushRejected(), call: c) }
        case .deliver(let p, let after): schedule(.apnsDeliver(p), after: after)
        case .store(let p): record(.apnsStored(push: p))
        case .drop(let p): record(.apnsDropped(push: p))
        case .lose(let p): record(.apnsLost(push: p))
        }
    }

    mutating func ackArrived(_ p: Int32) {
        let c = pushes[Int(p)].call
        record(.ackReceived(call: c, push: p))
        guard c >= 0 else { return }
        let active = !calls[Int(c)].machine.isOver
        // The response goes back first: it is the HTTP answer to the ack request.
        if phone.online { schedule(.ackResponse(push: p, active: active), after: settings.networkOneWayMs) }
        perform(calls[Int(c)].machine.ackReceived(), call: c)
    }

    mutating func registerArrived(expires: Int32) {
        let granted = expiry.grant(Int(expires))
        regExpiresAt = now + Int64(granted) * 1_000
        lastRegisterAt = now
        record(.registerReceived(granted: granted))
        // The 200 to REGISTER is scheduled before any OPTIONS so the flow is up when OPTIONS lands.
        schedule(.registerResult(true), after: settings.networkOneWayMs)
        for i in calls.indices
        where calls[i].machine.state == .awaitingRegister || calls[i].machine.state == .cancelledNoticeOwed {
            perform(calls[i].machine.registerReceived(), call: Int32(i))
        }
    }
}
