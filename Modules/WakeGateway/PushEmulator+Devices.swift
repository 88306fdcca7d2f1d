import AstraJSON
import HTTPLite
import PushKitEmu
import SIPCore

/// The device side of the push emulator: the phones' connections (a hello line first, then
/// pushes as lines), who is online, and the hello's grammar (docs/wake-gateway.md).
extension PushEmulator {

    func adopt(_ connection: TCPConnection) {
        let id = ObjectIdentifier(connection)
        switch table.admit(id, peer: connection.remoteIP, nowMs: nowMs) {
        case .refused:
            connection.close()
            return
        case .accepted(let evicted):
            if let evicted { open.removeValue(forKey: evicted)?.close() }
        }
        open[id] = connection
        // Until its hello, a device connection is "reading": the header timeout applies.
        table.update(id, .reading(sinceMs: nowMs), nowMs: nowMs)
        Task {
            await self.readHello(connection)
            self.closed(id)
        }
    }

    func closed(_ id: ObjectIdentifier) {
        table.remove(id)
        open.removeValue(forKey: id)?.close()
    }

    func readHello(_ connection: TCPConnection) async {
        var buffer: [UInt8] = []
        var token: String?
        for await event in connection.events {
            guard case .data(let bytes) = event else { break }
            if token != nil { continue }  // the device sends nothing after its hello
            buffer += bytes
            guard let newline = buffer.firstIndex(of: 10) else {
                if buffer.count > 4_096 { connection.close() }
                continue
            }
            switch Self.parseHello(Array(buffer[0..<newline])) {
            case .failure(let reason):
                log("push service: device \(connection.remote) sent a bad hello: \(reason.message)")
                _ = await connection.write(Array(((["error": .string(reason.message)] as JSONObject).jsonText + "\n").utf8))
                connection.close()
                return
            case .success(let hello):
                token = hello.token
                table.update(ObjectIdentifier(connection), .idle, nowMs: nowMs)
                await online(hello, connection)
            }
        }
        if let token, devices[token]?.connection === connection {
            devices[token] = nil
            log("push service: device \(TokenText.redact(token)) disconnected")
            emit(WakeEvent("device_disconnected", [("token", .string(TokenText.redact(token)))]))
        }
    }

    func online(_ hello: DeviceHello, _ connection: TCPConnection) async {
        devices[hello.token]?.connection.close()
        if let old = hello.replaces, old != hello.token {
            // The token was rotated (PushKit, FCM onNewToken): the old one is dead for good.
            retired[old] = wallClockMs()
            if retired.count > Self.maxRememberedTokens, let any = retired.keys.first(where: { $0 != old }) {
                retired[any] = nil
            }
            if let device = devices.removeValue(forKey: old) { device.connection.close() }
            log("push service: token \(TokenText.redact(old)) retired, replaced by \(TokenText.redact(hello.token))")
        }
        retired[hello.token] = nil
        devices[hello.token] = Device(connection: connection, hello: hello)
        remember(hello)
        log("push service: device \(TokenText.redact(hello.token)) online (\(hello.platform.rawValue), \(hello.topic))")
        var fields: [(String, JSONValue)] = [
            ("token", .string(TokenText.redact(hello.token))), ("platform", .string(hello.platform.rawValue)),
            ("topic", .string(hello.topic)),
        ]
        fields.append(
            hello.platform == .ios
                ? ("environment", .string(hello.environment.rawValue)) : ("project_id", .string(hello.project)))
        emit(WakeEvent("device_connected", fields))
        guard var model = models[hello.token] else { return }
        let action = model.deviceCameOnline(now: nowMs)
        models[hello.token] = model
        switch action {
        case .deliver(let push, let afterMs):
            if let held = stored.removeValue(forKey: push) {
                storedToken[push] = nil
                deliver(held.line, to: hello.token, afterMs: afterMs)
            }
        case .drop(let push):
            stored[push] = nil
            storedToken[push] = nil
            log("push service: stored push for \(TokenText.redact(hello.token)) expired")
        case .reject, .store, .lose, .none:
            break
        }
    }

    /// Which push service a device is a client of.
    package enum Platform: String, Sendable, Hashable {
        case ios, android
    }

    package struct DeviceHello: Sendable, Hashable {
        package var platform: Platform = .ios
        /// iOS: the APNs device token (lowercase hex); Android: the FCM registration token (as is).
        package var token: String
        /// iOS: the VoIP topic `<bundle>.voip`; Android: the app's package name.
        package var topic: String
        /// iOS: the token's APNs environment.
        package var environment: APNsEnvironment = .sandbox
        /// Android: the FCM project (sender) the token belongs to.
        package var project: String = ""
        /// The token this one replaces (rotation), if any.
        package var replaces: String? = nil
    }

    package struct HelloError: Error {
        package let message: String
    }

    /// A device's first line (package: the fuzz target reads hellos through it).
    package static func parseHello(_ bytes: [UInt8]) -> Result<DeviceHello, HelloError> {
        guard let json = try? JSONValue.parse(bytes), case .object = json else {
            return .failure(HelloError(message: "hello is not a JSON object"))
        }
        var platform = Platform.ios
        if let value = json["platform"] {
            guard case .string(let name) = value, let known = Platform(rawValue: name) else {
                return .failure(HelloError(message: "platform must be ios or android"))
            }
            platform = known
        }
        let normalize: (String) -> String? = { text in
            platform == .ios ? TokenText.normalized(text) : FCMTokenText.valid(text)
        }
        let tokenRule =
            platform == .ios ? "token must be hex, even length, 16-512 digits" : FCMTokenText.rule
        guard case .string(let rawToken)? = json["token"], let token = normalize(rawToken) else {
            return .failure(HelloError(message: tokenRule))
        }
        var replaces: String?
        if let value = json["replaces"] {
            guard case .string(let raw) = value, let old = normalize(raw) else {
                return .failure(HelloError(message: "replaces must be a token: " + tokenRule.dropFirst(14)))
            }
            replaces = old
        }
        if platform == .android {
            guard case .string(let package)? = json["package"], FCMTokenText.isName(package) else {
                return .failure(HelloError(message: "package must be an application id (letters, digits, . _)"))
            }
            guard case .string(let project)? = json["project_id"], FCMTokenText.isName(project) else {
                return .failure(HelloError(message: "project_id must be an FCM project id"))
            }
            return .success(
                DeviceHello(platform: .android, token: token, topic: package, project: project, replaces: replaces))
        }
        guard case .string(let topic)? = json["topic"], topic.hasSuffix(".voip"), topic.count > 5 else {
            return .failure(HelloError(message: "topic must be <bundle id>.voip"))
        }
        guard case .string(let env)? = json["environment"], let environment = APNsEnvironment(rawValue: env) else {
            return .failure(HelloError(message: "environment must be sandbox or production"))
        }
        return .success(DeviceHello(token: token, topic: topic, environment: environment, replaces: replaces))
    }
}
