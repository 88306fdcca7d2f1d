#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The client's half of the client protocol: serves a Swift ``PushClientPolicy`` over standard
/// input and output, so `astra-pushsim run|check|fuzz|live --client-cmd` can judge it as a
/// separate process (the built-in `astra-pushsim client`, or a Swift package's own executable).
///
/// `reset` and `launched` both start from a fresh policy (`make` with the scenario's settings):
/// a launched app has fresh memory. CallKit UUIDs go out as their decimal strings.
public struct ClientProtocolServer<P: PushClientPolicy> {
    /// The name the client announces in its `hello` answer.
    public let name: String
    let make: (EmulatorSettings) -> P
    /// What the policy opens sealed pushes with (``ClientContext/sealing``): the sealing of the
    /// emulator that drives this process — AES-256-GCM for astra-pushsim (PushKitLive's
    /// `CallSealBox`).
    let sealing: any SealOpener

    /// `make` builds the policy for the settings a scenario is judged with.
    public init(name: String, sealing: any SealOpener = SymbolicSealBox(), _ make: @escaping (EmulatorSettings) -> P) {
        self.name = name
        self.sealing = sealing
        self.make = make
    }

    /// Reads callback lines from standard input and writes one answer line each to standard
    /// output until input ends; returns the exit status (0, or 65 after a line it cannot read,
    /// with the reason on standard error).
    public func serve() -> Int32 {
        serve(
            readLine: { Swift.readLine(strippingNewline: true) },
            write: { Self.writeAll(1, $0 + "\n") }, error: { Self.writeAll(2, $0 + "\n") })
    }

    /// ``serve()``, then exits the process with its status: the whole `main.swift` of a client
    /// executable is `ClientProtocolServer(name: "my-app") { MyHandler(settings: $0) }.serveAndExit()`.
    public func serveAndExit() -> Never { exit(serve()) }

    /// Writes `text` to `fd` unbuffered (an answer must leave before the next callback is read).
    static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// The loop over any line source and sink (tests drive it directly).
    public func serve(readLine: () -> String?, write: (String) -> Void, error report: (String) -> Void) -> Int32 {
        var session = Session(server: self)
        while let line = readLine() {
            guard !line.isEmpty else { continue }
            do throws(ClientFault) {
                write(try session.answer(Array(line.utf8)))
            } catch {
                report("\(name): \(error.detail)")
                return 65
            }
        }
        return 0
    }

    /// One client process's state: the policy, its context, the settings of the last `reset`.
    public struct Session {
        let server: ClientProtocolServer
        var policy: P
        var ctx: ClientContext
        var settings = EmulatorSettings()

        public init(server: ClientProtocolServer) {
            self.server = server
            ctx = ClientContext(sealing: server.sealing)
            policy = server.make(EmulatorSettings())
        }

        /// The answer line to one callback line.
        public mutating func answer(_ line: [UInt8]) throws(ClientFault) -> String {
            let wire = try ClientWire.decode(ClientWire.Callback.self, line, what: "callback line")
            switch wire.callback {
            case "hello":
                var out = JSONLine()
                out.add("hello", ClientProtocol.name)
                out.add("version", ClientProtocol.version)
                out.add("name", server.name)
                return out.string
            case "reset":
                settings = wire.settings ?? EmulatorSettings()
                policy = server.make(settings)
                ctx = ClientContext(sealing: server.sealing)
                return Self.opsLine([])
            default:
                let callback = try ClientProtocolServer.callback(wire)
                if case .launched = callback { policy = server.make(settings) }
                ctx.begin(
                    now: wire.t ?? 0, locked: wire.locked ?? false, online: wire.online ?? true,
                    appState: wire.appState ?? .background)
                callback.deliver(to: &policy, &ctx)
                return Self.opsLine(ctx.ops)
            }
        }

        /// `{"ops":[…]}` for `ops`.
        static func opsLine(_ ops: [ClientOp]) -> String {
            var line = JSONLine()
            line.add("ops", objects: ops.map(ClientProtocolServer.wire))
            return line.string
        }
    }

    /// The policy callback a wire line names.
    static func callback(_ w: ClientWire.Callback) throws(ClientFault) -> ClientCallback {
        func need<T>(_ value: T?, _ field: String) throws(ClientFault) -> T {
            guard let value else { throw ClientFault(.badAnswer, "callback \(w.callback): missing \(field)") }
            return value
        }
        switch w.callback {
        case "launched": return .launched
        case "push":
            let p = try need(w.push, "push")
            var sealed: SealedPush?
            if let s = p.sealed {
                guard let blob = WireBase64.decode(s.blob) else {
                    throw ClientFault(.badAnswer, "callback push: sealed.blob is not base64url")
                }
                sealed = SealedPush(gatewayHash: s.gatewayHash, endMs: s.endMs, callID: s.callId, blob: blob)
            }
            return .push(
                VoIPPush(
                    pushID: p.pushId, call: p.call, content: p.content, origin: p.origin, sentAt: p.sentAt,
                    mustReport: p.mustReport, sealed: sealed))
        case "call_keys":
            var keys: [GatewayCallKey] = []
            for k in try need(w.keys, "keys") {
                guard let key = WireBase64.decode(k.key) else {
                    throw ClientFault(.badAnswer, "callback call_keys: a key is not base64url")
                }
                keys.append(GatewayCallKey(gatewayHash: k.gatewayHash, key: key, grantExpiresMs: k.grantExpiresMs ?? -1))
            }
            return .callKeys(keys)
        case "ack_response":
            return .ackResponse(
                pushID: try need(w.pushId, "push_id"), callActive: try need(w.callActive, "call_active"))
        case "call_gone": return .callGone(pushID: try need(w.pushId, "push_id"))
        case "token_updated": return .tokenUpdated
        case "token_invalidated": return .tokenInvalidated
        case "registration_finished": return .registrationFinished(success: try need(w.success, "success"))
        case "invite": return .invite(IncomingInvite(call: try need(w.call, "call"), pushID: w.pushId ?? -1))
        case "cancel": return .cancel(call: try need(w.call, "call"))
        case "answer_action": return .answerAction(uuid: try uuid(try need(w.uuid, "uuid")))
        case "end_action": return .endAction(uuid: try uuid(try need(w.uuid, "uuid")))
        case "timer":
            let name = try need(w.timer, "timer")
            guard let timer = ClientProtocol.timer(named: name) else {
                throw ClientFault(.badAnswer, "callback timer: unknown timer '\(name)'")
            }
            return .timer(timer)
        case "connectivity": return .connectivity(online: w.online ?? true)
        default: throw ClientFault(.badAnswer, "unknown callback '\(w.callback.prefix(40))'")
        }
    }

    static func uuid(_ text: String) throws(ClientFault) -> Int32 {
        guard let uuid = Int32(text) else {
            throw ClientFault(.badAnswer, "uuid '\(text.prefix(40))' is not one of ours")
        }
        return uuid
    }

    /// One op as its wire object.
    static func wire(_ op: ClientOp) -> JSONLine {
        var o = JSONLine()
        switch op {
        case .ackPush(let p):
            o.add("op", "ack")
            o.add("push_id", p)
        case .reportNewIncomingCall(let uuid, let p, let invite):
            o.add("op", "report")
            o.add("uuid", String(uuid))
            if p >= 0 { o.add("push_id", p) }
            if invite >= 0 { o.add("invite", invite) }
        case .reportCallUpdated(let uuid):
            o.add("op", "update")
            o.add("uuid", String(uuid))
        case .showCaller(let uuid):
            o.add("op", "show_caller")
            o.add("uuid", String(uuid))
        case .reportCallEnded(let uuid, let reason):
            o.add("op", "end")
            o.add("uuid", String(uuid))
            o.add("reason", reason.rawValue)
        case .fulfillAnswer(let uuid):
            o.add("op", "fulfill")
            o.add("uuid", String(uuid))
        case .failAnswer(let uuid):
            o.add("op", "fail")
            o.add("uuid", String(uuid))
        case .claimInvite(let c, let uuid):
            o.add("op", "claim")
            o.add("call", c)
            o.add("uuid", String(uuid))
        case .sendOK(let c):
            o.add("op", "ok")
            o.add("call", c)
        case .sendDecline(let c):
            o.add("op", "decline")
            o.add("call", c)
        case .register(let protection):
            o.add("op", "register")
            o.add("keychain", protection.rawValue)
        case .uploadToken: o.add("op", "upload_token")
        case .deleteToken: o.add("op", "delete_token")
        case .fetch: o.add("op", "fetch")
        case .stopGrants: o.add("op", "stop_grants")
        case .renewGrant(let seconds):
            o.add("op", "renew_grant")
            o.add("lifetime_s", seconds)
        case .startTimer(let timer, let after):
            o.add("op", "start_timer")
            o.add("timer", ClientProtocol.timerName(timer))
            o.add("after_ms", after)
        }
        return o
    }
}
