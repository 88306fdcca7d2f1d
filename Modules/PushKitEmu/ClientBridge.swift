/// The emulator's half of the client protocol, without the IO: renders each callback as the
/// line the client process reads, and turns its answer line into ``ClientOp``s on the context.
///
/// CallKit UUIDs and timer names are the client's own strings (a real app makes its UUIDs); the
/// bridge maps each to the small integer the emulator uses, and back for callbacks that name
/// them. A value per app process: the emulator drops it with the policy when the process dies.
/// Every answer is bounded (``ClientProtocol``): a client cannot make the emulator allocate
/// without limit or crash it with a huge number — it gets a `CLIENT` violation instead.
package struct ClientBridge: Sendable {
    var uuidOf: [String: Int32] = [:]
    var uuidName: [Int32: String] = [:]
    var timerOf: [String: Int32] = [:]
    var timerName: [Int32: String] = [:]
    /// Push-ids this process was told about (a `push`, `ack_response`, `call_gone`, `invite`):
    /// the only ones a `report` can name.
    var pushesSeen: Set<Int32> = []
    /// Calls whose INVITE this process received: the only ones `report` with `invite` can name.
    var invitesSeen: Set<Int32> = []

    public init() {}

    /// The first line to a new client process.
    public static func helloLine(mode: String) -> String {
        var line = JSONLine()
        line.add("callback", "hello")
        line.add("protocol", ClientProtocol.name)
        line.add("version", ClientProtocol.version)
        line.add("mode", mode)
        return line.string
    }

    /// Reads the answer to `hello`; returns the client's name.
    public static func readHello(_ line: [UInt8]) throws(ClientFault) -> String {
        let answer = try ClientWire.decode(ClientWire.Answer.self, line, what: "answer to hello")
        guard answer.hello == ClientProtocol.name else {
            throw ClientFault(
                .badAnswer,
                "answer to hello: expected {\"hello\":\"\(ClientProtocol.name)\",\"version\":\(ClientProtocol.version),…}, got \(ClientWire.excerpt(line))"
            )
        }
        guard answer.version == ClientProtocol.version else {
            throw ClientFault(
                .badAnswer,
                "the client speaks protocol version \(answer.version.map(String.init) ?? "(none)"), this emulator speaks \(ClientProtocol.version)"
            )
        }
        let name = answer.name ?? "client"
        guard !name.isEmpty, name.utf8.count <= ClientProtocol.maxNameBytes else {
            throw ClientFault(.badAnswer, "answer to hello: name must be 1…\(ClientProtocol.maxNameBytes) bytes")
        }
        return name
    }

    /// The `reset` line: a new scenario (or a fresh process) with the settings it is judged by.
    public static func resetLine(scenario: String, settings: EmulatorSettings) -> String {
        var line = JSONLine()
        line.add("callback", "reset")
        line.add("scenario", scenario)
        line.add("settings", object: ClientWire.settingsObject(settings))
        return line.string
    }

    /// Reads the answer to `reset`: `{"ops":[]}` (ops there mean nothing and are not allowed).
    public static func readReset(_ line: [UInt8]) throws(ClientFault) {
        let answer = try ClientWire.decode(ClientWire.Answer.self, line, what: "answer to reset")
        guard let ops = answer.ops, ops.isEmpty else {
            throw ClientFault(.badAnswer, "answer to reset: expected {\"ops\":[]}, got \(ClientWire.excerpt(line))")
        }
    }

    /// The line for a policy callback, with the device facts of `ctx`; notes the push-ids and
    /// INVITEs it tells the client about (what a later `report` may name).
    public mutating func line(for callback: ClientCallback, _ ctx: ClientContext) -> String {
        switch callback {
        case .push(let push): pushesSeen.insert(push.pushID)
        case .ackResponse(let p, _), .callGone(let p): pushesSeen.insert(p)
        case .invite(let invite):
            invitesSeen.insert(invite.call)
            if invite.pushID >= 0 { pushesSeen.insert(invite.pushID) }
        default: break
        }
        switch callback {
        case .hello(let mode): return Self.helloLine(mode: mode)
        case .reset(let scenario, let settings): return Self.resetLine(scenario: scenario, settings: settings)
        default: break
        }
        var line = ClientWire.callbackLine(callback.wireName, ctx)
        switch callback {
        case .hello, .reset, .launched, .tokenUpdated, .tokenInvalidated, .connectivity: break
        case .push(let push): line.add("push", object: ClientWire.pushObject(push))
        case .callKeys(let keys):
            line.add("sealing", ctx.sealing.name)
            line.add("keys", objects: ClientWire.keyObjects(keys))
        case .ackResponse(let p, let active):
            line.add("push_id", p)
            line.add("call_active", active)
        case .callGone(let p): line.add("push_id", p)
        case .registrationFinished(let ok): line.add("success", ok)
        case .invite(let invite):
            line.add("call", invite.call)
            line.add("push_id", invite.pushID)
        case .cancel(let c): line.add("call", c)
        case .answerAction(let uuid), .endAction(let uuid): line.add("uuid", uuidName[uuid] ?? String(uuid))
        case .timer(let timer):
            if case .named(let id) = timer, let name = timerName[id] {
                line.add("timer", name)
            } else {
                line.add("timer", ClientProtocol.timerName(timer))
            }
        }
        return line.string
    }

    /// Reads the answer to callback `name` and records its ops on `ctx`, in order. Throws (and
    /// records nothing) when the line is not a valid answer.
    public mutating func apply(answer bytes: [UInt8], to ctx: inout ClientContext, callback name: String)
        throws(ClientFault)
    {
        let what = "answer to \(name)"
        let answer = try ClientWire.decode(ClientWire.Answer.self, bytes, what: what)
        guard let wireOps = answer.ops else {
            throw ClientFault(.badAnswer, "\(what): expected {\"ops\":[…]}, got \(ClientWire.excerpt(bytes))")
        }
        guard wireOps.count <= ClientProtocol.maxOps else {
            throw ClientFault(.badAnswer, "\(what): \(wireOps.count) ops (at most \(ClientProtocol.maxOps))")
        }
        var ops: [ClientOp] = []
        ops.reserveCapacity(wireOps.count)
        var scratch = self
        for (i, op) in wireOps.enumerated() {
            ops.append(try scratch.op(op, &ctx, what: "\(what), op \(i)"))
        }
        self = scratch
        for op in ops { ctx.perform(op) }
    }

    mutating func op(_ op: ClientWire.Op, _ ctx: inout ClientContext, what: String) throws(ClientFault) -> ClientOp {
        func need<T>(_ value: T?, _ field: String) throws(ClientFault) -> T {
            guard let value else { throw ClientFault(.badAnswer, "\(what) (\(op.op)): missing \(field)") }
            return value
        }
        switch op.op {
        case "ack": return .ackPush(pushID: try need(op.pushId, "push_id"))
        case "report":
            let uuid = try newUUID(try need(op.uuid, "uuid"), &ctx, what: what)
            try checkReport(op, what: "\(what) (report)")
            return .reportNewIncomingCall(uuid: uuid, pushID: max(op.pushId ?? -1, -1), invite: max(op.invite ?? -1, -1))
        case "update": return .reportCallUpdated(uuid: known(try need(op.uuid, "uuid")))
        case "show_caller": return .showCaller(uuid: known(try need(op.uuid, "uuid")))
        case "end":
            let reason = try need(op.reason, "reason")
            guard let end = EndReason(rawValue: reason) else {
                throw ClientFault(
                    .badAnswer,
                    "\(what) (end): reason '\(reason)' is not failed, remoteEnded, unanswered, answeredElsewhere or declinedElsewhere"
                )
            }
            return .reportCallEnded(uuid: known(try need(op.uuid, "uuid")), reason: end)
        case "fulfill": return .fulfillAnswer(uuid: known(try need(op.uuid, "uuid")))
        case "fail": return .failAnswer(uuid: known(try need(op.uuid, "uuid")))
        case "claim": return .claimInvite(call: try need(op.call, "call"), uuid: known(try need(op.uuid, "uuid")))
        case "ok": return .sendOK(call: try need(op.call, "call"))
        case "decline": return .sendDecline(call: try need(op.call, "call"))
        case "register":
            let keychain = op.keychain ?? KeychainProtection.afterFirstUnlock.rawValue
            guard let protection = KeychainProtection(rawValue: keychain) else {
                throw ClientFault(
                    .badAnswer, "\(what) (register): keychain '\(keychain)' is not afterFirstUnlock or whenUnlocked")
            }
            return .register(protection: protection)
        case "upload_token": return .uploadToken
        case "delete_token": return .deleteToken
        case "fetch": return .fetch
        case "stop_grants": return .stopGrants
        case "renew_grant":
            let seconds = try need(op.lifetimeS, "lifetime_s")
            guard (1...ClientProtocol.maxGrantSeconds).contains(seconds) else {
                throw ClientFault(
                    .badAnswer, "\(what) (renew_grant): lifetime_s \(seconds) not in 1…\(ClientProtocol.maxGrantSeconds)")
            }
            return .renewGrant(lifetimeSeconds: Int32(seconds))
        case "start_timer":
            let name = try need(op.timer, "timer")
            let after = try need(op.afterMs, "after_ms")
            guard (0...ClientProtocol.maxTimerMs).contains(after) else {
                throw ClientFault(
                    .badAnswer, "\(what) (start_timer): after_ms \(after) not in 0…\(ClientProtocol.maxTimerMs)")
            }
            return .startTimer(.named(try timerID(name, what: what)), afterMs: after)
        default:
            throw ClientFault(
                .badAnswer,
                "\(what): unknown op '\(op.op.prefix(40))' (ack, report, update, show_caller, end, fulfill, fail, claim, ok, decline, register, upload_token, delete_token, stop_grants, renew_grant, fetch, start_timer)"
            )
        }
    }

    /// A `report` names exactly one thing it reports: a push this process received (`push_id`)
    /// or an INVITE it received (`invite`, the INVITE's `call`). Both, neither, or one it never
    /// received is a client bug — CallKit would show a call that stands for nothing.
    /// A negative `push_id` or `invite` (-1, as the `invite` callback spells "no push") is none.
    func checkReport(_ op: ClientWire.Op, what: String) throws(ClientFault) {
        switch (op.pushId.flatMap { $0 >= 0 ? $0 : nil }, op.invite.flatMap { $0 >= 0 ? $0 : nil }) {
        case (nil, nil):
            throw ClientFault(.badAnswer, "\(what): needs push_id (a push) or invite (an INVITE's call)")
        case (.some(let p), .some(let c)):
            throw ClientFault(
                .badAnswer, "\(what): push_id \(p) and invite \(c) both given; a report is for a push or an INVITE")
        case (.some(let p), nil):
            guard pushesSeen.contains(p) else {
                throw ClientFault(.badAnswer, "\(what): push_id \(p) was never delivered to this process")
            }
        case (nil, .some(let c)):
            guard invitesSeen.contains(c) else {
                throw ClientFault(.badAnswer, "\(what): invite \(c) is not an INVITE this process received")
            }
        }
    }

    /// A UUID the client reports: a new emulator UUID the first time, the same one after.
    mutating func newUUID(_ name: String, _ ctx: inout ClientContext, what: String) throws(ClientFault) -> Int32 {
        if let known = uuidOf[name] { return known }
        try checkName(name, table: uuidOf.count, what: what)
        let uuid = ctx.newCallUUID()
        ctx.uuidNames[uuid] = name
        uuidOf[name] = uuid
        uuidName[uuid] = name
        return uuid
    }

    /// A UUID the client names in any other op; one it never reported names no call (-1).
    func known(_ name: String) -> Int32 { uuidOf[name] ?? -1 }

    mutating func timerID(_ name: String, what: String) throws(ClientFault) -> Int32 {
        if let id = timerOf[name] { return id }
        try checkName(name, table: timerOf.count, what: what)
        let id = Int32(timerOf.count)
        timerOf[name] = id
        timerName[id] = name
        return id
    }

    func checkName(_ name: String, table: Int, what: String) throws(ClientFault) {
        guard !name.isEmpty, name.utf8.count <= ClientProtocol.maxNameBytes else {
            throw ClientFault(.badAnswer, "\(what): names must be 1…\(ClientProtocol.maxNameBytes) bytes")
        }
        guard table < ClientProtocol.maxNames else {
            throw ClientFault(.badAnswer, "\(what): more than \(ClientProtocol.maxNames) distinct names in one process")
        }
    }
}
