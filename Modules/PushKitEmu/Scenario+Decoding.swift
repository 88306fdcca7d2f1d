import AstraJSON

/// A scenario file that could not be read (exit 64 in the tool).
public struct ScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Sendable, Hashable {
        /// Not valid JSON, or a field has the wrong type or value.
        case invalidJSON
        /// A step refers to something that does not exist.
        case invalidStep
    }

    /// The error code (equality is on it).
    public var code: Code
    /// One line for people.
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: ScenarioError, rhs: ScenarioError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { reason }
}

extension Scenario {
    /// Decodes a scenario file (snake_case keys; every field but `steps` optional, defaults as in
    /// ``EmulatorSettings`` and the setup types). Schema: docs/pushkit-emulator.md.
    public static func decode(json bytes: [UInt8]) throws(ScenarioError) -> Scenario {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch {
            throw ScenarioError(.invalidJSON, "scenario JSON: \(error)")
        }
        let scenario: Scenario
        do {
            scenario = try JSONValueDecoder(convertFromSnakeCase: true).decode(Scenario.self, from: value)
        } catch let error as DecodingError {
            throw ScenarioError(.invalidJSON, "scenario JSON: " + ScenarioError.describe(error))
        } catch {
            throw ScenarioError(.invalidJSON, "scenario JSON: \(error)")
        }
        try scenario.checkBounds()
        for (name, percent) in [
            ("apns_loss_percent", scenario.settings.apnsLossPercent),
            ("expired_late_delivery_percent", scenario.settings.expiredLateDeliveryPercent),
        ] where !(0...100).contains(percent) {
            throw ScenarioError(.invalidJSON, "scenario JSON: settings.\(name) must be in 0...100")
        }
        for (i, step) in scenario.steps.enumerated() {
            if step.action == .hangup, step.call == nil {
                throw ScenarioError(.invalidStep, "step \(i): hangup needs call")
            }
            if step.action == .app, step.state == nil {
                throw ScenarioError(.invalidStep, "step \(i): app needs state")
            }
        }
        return scenario
    }
}

extension ScenarioError {
    /// A decoding error in the words of the file or line that was read: its snake_case field
    /// names (`ops.1.after_ms`, not the Swift property `afterMs`) and JSON's types ("an integer",
    /// not `Int64`) — the reader wrote JSON, not Swift.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let p = context.codingPath.map { $0.intValue.map(String.init) ?? wireName($0.stringValue) }
                .joined(separator: ".")
            return p.isEmpty ? "" : " at " + p
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing key \(wireName(key.stringValue))\(path(context))"
        case .typeMismatch(_, let context): return "wrong type\(path(context)): \(wireTypes(context.debugDescription))"
        case .valueNotFound(_, let context): return "missing value\(path(context))"
        case .dataCorrupted(let context): return "invalid\(path(context)): \(wireTypes(context.debugDescription))"
        @unknown default: return "\(error)"
        }
    }

    /// A coding key as it is spelled in JSON: camelCase back to snake_case (`afterMs` →
    /// `after_ms`, `maxVoIPPayloadBytes` → `max_voip_payload_bytes`); snake_case stays.
    static func wireName(_ key: String) -> String {
        let chars = Array(key)
        var out = ""
        for (i, c) in chars.enumerated() {
            if c.isUppercase, i > 0 {
                let previous = chars[i - 1]
                let nextIsLower = i + 1 < chars.count && chars[i + 1].isLowercase
                // A new word: after a lower-case letter or digit, or the last capital of an acronym
                // followed by a lower-case letter ("IPPayload" → "ip" + "payload").
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    out.append("_")
                }
            }
            out.append(contentsOf: c.lowercased())
        }
        return out.replacing("vo_ip", with: "voip")
    }

    /// Swift type names in a decoder's message replaced by JSON's words.
    static func wireTypes(_ message: String) -> String {
        var text = message
        for (swift, json) in [
            ("UInt64", "an integer"), ("UInt32", "an integer"), ("Int64", "an integer"), ("Int32", "an integer"),
            ("Int", "an integer"), ("Double", "a number"), ("String", "a string"), ("Bool", "true or false"),
        ] {
            text = text.replacing("expected \(swift),", with: "expected \(json),")
            text = text.replacing("for \(swift):", with: "for \(json):")
        }
        return text
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == AnyKey {
    fileprivate func get<T: Decodable>(_ key: String, _ fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: AnyKey(key)) ?? fallback
    }
}

extension Scenario: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        self.init(name: try c.get("name", "file"), summary: try c.get("summary", ""))
        settings = try c.get("settings", settings)
        phone = try c.get("phone", phone)
        server = try c.get("server", server)
        steps = try c.decode([ScenarioStep].self, forKey: AnyKey("steps"))
        expect = try c.decodeIfPresent([CallOutcome].self, forKey: AnyKey("expect"))
    }
}

extension PhoneSetup: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        self.init()
        app = try c.get("app", app)
        online = try c.get("online", online)
        locked = try c.get("locked", locked)
        environment = try c.get("environment", environment)
        registered = try c.get("registered", registered)
        tokenOnServer = try c.get("tokenOnServer", tokenOnServer)
        mustReport = try c.decodeIfPresent(Bool.self, forKey: AnyKey("mustReport"))
    }
}

extension ServerSetup: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        self.init()
        bundleID = try c.get("bundleId", bundleID)
        apnsEnvironment = try c.get("apnsEnvironment", apnsEnvironment)
        request = try c.get("request", request)
        messagesViaVoIP = try c.get("messagesViaVoip", messagesViaVoIP)
        goneNotice = try c.get("goneNotice", goneNotice)
        sealed = try c.get("sealed", sealed)
    }
}

extension APNsRequest: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        self.init()
        pushType = try c.get("pushType", pushType)
        topic = try c.get("topic", topic)
        priority = try c.get("priority", priority)
        expirationSeconds = try c.get("expirationSeconds", expirationSeconds)
        payloadBytes = try c.get("payloadBytes", payloadBytes)
    }
}

extension EmulatorSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        self.init()
        ackWindowMs = try c.get("ackWindowMs", ackWindowMs)
        failoverBoundMs = try c.get("failoverBoundMs", failoverBoundMs)
        registerWaitMs = try c.get("registerWaitMs", registerWaitMs)
        qualifyTimeoutMs = try c.get("qualifyTimeoutMs", qualifyTimeoutMs)
        inviteTimeoutMs = try c.get("inviteTimeoutMs", inviteTimeoutMs)
        expiryCapSeconds = try c.get("expiryCapSeconds", expiryCapSeconds)
        expiryFloorSeconds = try c.get("expiryFloorSeconds", expiryFloorSeconds)
        requestedExpirySeconds = try c.get("requestedExpirySeconds", requestedExpirySeconds)
        if let ms = try c.decodeIfPresent(Int64.self, forKey: AnyKey("apnsLatencyMs")) { apnsDelay = .fixed(ms) }
        apnsDelay = try c.get("apnsDelay", apnsDelay)
        apnsLossPercent = try c.get("apnsLossPercent", apnsLossPercent)
        expiredLateDeliveryPercent = try c.get("expiredLateDeliveryPercent", expiredLateDeliveryPercent)
        expiredLateDeliveryWindowMs = try c.get("expiredLateDeliveryWindowMs", expiredLateDeliveryWindowMs)
        maxVoIPPayloadBytes = try c.get("maxVoipPayloadBytes", maxVoIPPayloadBytes)
        networkOneWayMs = try c.get("networkOneWayMs", networkOneWayMs)
        if let ms = try c.decodeIfPresent(Int64.self, forKey: AnyKey("launchFromKilledMs")) {
            launchFromKilled = .fixed(ms)
        }
        launchFromKilled = try c.get("launchFromKilled", launchFromKilled)
        if let ms = try c.decodeIfPresent(Int64.self, forKey: AnyKey("launchFromSuspendedMs")) {
            launchFromSuspended = .fixed(ms)
        }
        launchFromSuspended = try c.get("launchFromSuspended", launchFromSuspended)
        strikeThreshold = try c.get("strikeThreshold", strikeThreshold)
        mustReportFalseWaivesR1 = try c.get("mustReportFalseWaivesR1", mustReportFalseWaivesR1)
        placeholderTimeoutMs = try c.get("placeholderTimeoutMs", placeholderTimeoutMs)
        answerActionTimeoutMs = try c.get("answerActionTimeoutMs", answerActionTimeoutMs)
        staleAfterMs = try c.get("staleAfterMs", staleAfterMs)
        naiveMergeDelayMs = try c.get("naiveMergeDelayMs", naiveMergeDelayMs)
    }
}

extension DelayDistribution: Decodable {
    /// A number (fixed ms) or a spec string (`uniform:100:900`, `lognormal:622:2000`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let ms = try? c.decode(Int64.self) {
            self = try Self.checked(String(ms), c)
        } else {
            self = try Self.checked(try c.decode(String.self), c)
        }
    }

    private static func checked(_ spec: String, _ c: any SingleValueDecodingContainer) throws -> DelayDistribution {
        do {
            return try DelayDistribution(spec: spec)
        } catch {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: error.reason)
        }
    }
}
