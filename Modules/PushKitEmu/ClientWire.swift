import AstraJSON

/// The client protocol's lines as JSON (docs/pushkit-emulator.md "Bring your own client"):
/// writing uses ``JSONLine`` (fixed key order), reading uses AstraJSON's one parser and its
/// `Decodable` reader with snake_case keys — the same reader as scenario files.
package enum ClientWire {
    static let decoder = JSONValueDecoder(convertFromSnakeCase: true)

    /// Decodes one line; a decoding failure becomes a ``ClientFault`` of kind `badAnswer`
    /// naming `what` and the first bytes read.
    static func decode<T: Decodable>(_ type: T.Type, _ line: [UInt8], what: String) throws(ClientFault) -> T {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch {
            throw ClientFault(.badAnswer, "\(what): not JSON (\(error)): \(excerpt(line))")
        }
        do {
            return try decoder.decode(T.self, from: value)
        } catch let error as DecodingError {
            throw ClientFault(.badAnswer, "\(what): \(ScenarioError.describe(error)) in \(excerpt(line))")
        } catch {
            throw ClientFault(.badAnswer, "\(what): \(error) in \(excerpt(line))")
        }
    }

    /// At most 80 bytes of `line`, for an error message (control bytes shown as `?`).
    package static func excerpt(_ line: [UInt8]) -> String {
        let shown = line.prefix(80).map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: "?") : $0 }
        return JSONLine.quote(String(decoding: shown, as: UTF8.self)) + (line.count > 80 ? "…" : "")
    }

    /// The device facts every callback line carries.
    static func callbackLine(_ name: String, _ ctx: ClientContext) -> JSONLine {
        var line = JSONLine()
        line.add("callback", name)
        line.add("t", ctx.now)
        line.add("app_state", ctx.appState.rawValue)
        line.add("locked", ctx.deviceLocked)
        line.add("online", ctx.online)
        return line
    }

    /// The `settings` object of `reset`: the thresholds a client needs to follow the rules.
    static func settingsObject(_ s: EmulatorSettings) -> JSONLine {
        var line = JSONLine()
        line.add("ack_window_ms", s.ackWindowMs)
        line.add("placeholder_timeout_ms", s.placeholderTimeoutMs)
        line.add("answer_action_timeout_ms", s.answerActionTimeoutMs)
        line.add("stale_after_ms", s.staleAfterMs)
        line.add("naive_merge_delay_ms", s.naiveMergeDelayMs)
        return line
    }

    /// The `push` object of the `push` callback.
    static func pushObject(_ push: VoIPPush) -> JSONLine {
        var line = JSONLine()
        line.add("push_id", push.pushID)
        line.add("call", push.call)
        line.add("content", push.content.rawValue)
        line.add("origin", push.origin.rawValue)
        line.add("sent_at", push.sentAt)
        if let must = push.mustReport { line.add("must_report", must) }
        if let sealed = push.sealed {
            var s = JSONLine()
            s.add("gateway_hash", sealed.gatewayHash)
            s.add("end_ms", sealed.endMs)
            s.add("call_id", sealed.callID)
            s.add("blob", WireBase64.encode(sealed.blob))
            line.add("sealed", object: s)
        }
        return line
    }

    /// The `keys` of the `call_keys` callback.
    static func keyObjects(_ keys: [GatewayCallKey]) -> [JSONLine] {
        keys.map { k in
            var o = JSONLine()
            o.add("gateway_hash", k.gatewayHash)
            o.add("key", WireBase64.encode(k.key))
            if k.grantExpiresMs >= 0 { o.add("grant_expires_ms", k.grantExpiresMs) }
            return o
        }
    }

    /// An answer: `hello` or `ops`.
    struct Answer: Decodable {
        var hello: String?
        var version: Int?
        var name: String?
        var ops: [Op]?
    }

    /// One op of an answer; which fields it needs depends on `op`.
    struct Op: Decodable {
        var op: String
        var pushId: Int32?
        var uuid: String?
        var invite: Int32?
        var call: Int32?
        var reason: String?
        var keychain: String?
        var timer: String?
        var afterMs: Int64?
        var lifetimeS: Int64?
    }

    /// A callback line as the client side reads it.
    struct Callback: Decodable {
        var callback: String
        var t: Int64?
        var appState: AppState?
        var locked: Bool?
        var online: Bool?
        var mode: String?
        var version: Int?
        var scenario: String?
        var settings: EmulatorSettings?
        var push: Push?
        var pushId: Int32?
        var callActive: Bool?
        var success: Bool?
        var call: Int32?
        var uuid: String?
        var timer: String?
        var keys: [Key]?
        var sealing: String?
    }

    struct Key: Decodable {
        var gatewayHash: String
        var key: String
        var grantExpiresMs: Int64?
    }

    struct Sealed: Decodable {
        var gatewayHash: String
        var endMs: Int64
        var callId: String
        var blob: String
    }

    struct Push: Decodable {
        var pushId: Int32
        var call: Int32
        var content: PushContent
        var origin: PushOrigin
        var sentAt: Int64
        var mustReport: Bool?
        var sealed: Sealed?
    }
}
