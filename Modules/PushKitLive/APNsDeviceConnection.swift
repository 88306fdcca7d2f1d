import AstraJSON
import HTTPLite
import PushKitEmu
import SIPCore

/// The push service a live phone gets its pushes from.
public enum DevicePlatform: String, Sendable, Hashable {
    /// APNs VoIP pushes (PushKit): the rules of docs/push-wake-rules.md.
    case ios
    /// FCM data messages: a high-priority one is Android's counterpart of a VoIP push.
    case android
}

/// One VoIP push as the gateway's push emulator delivers it to the device (docs/pushkit-emulator.md,
/// "Live mode": one JSON line per push) — an APNs notification, or an FCM data message on Android.
public struct DevicePush: Sendable, Hashable {
    public var platform: DevicePlatform = .ios
    /// APNs' id of the notification (`apns-id`).
    public var apnsID: String
    /// `apns-push-type` (must be `voip`).
    public var pushType: String
    /// `apns-topic` (`<bundle>.voip`).
    public var topic: String
    /// `apns-priority`.
    public var priority: Int
    /// `apns-expiration` (0 = deliver now or drop).
    public var expiration: Int
    /// The payload's push-id (the ack capability); nil when the payload cannot be read.
    public var pushID: String?
    /// The caller number.
    public var caller: String?
    /// The Call-ID of the held INVITE (R5 match); for a sealed push also the blob's associated data.
    public var callID: String?
    /// Sealed push (docs/wake-gateway.md "Sealed push"): the gateway hash (`gw`), the gateway's
    /// end time for the ring (`end_ms`, wall-clock ms) and the sealed caller (`caller_blob`,
    /// base64url). Nil for a clear push. Never printed.
    public var gatewayHash: String?
    public var endMs: Int64?
    public var callerBlob: String?

    /// Parses one delivered line; nil when it is not a JSON object at all. An FCM data message
    /// (`{"platform":"android","message_id","priority","ttl_s","data":{…}}`) maps onto the same
    /// fields: its message id, `voip` for a high-priority message (the one Android lets start an
    /// app for an incoming call; a normal-priority one is not handled as a call), its ttl.
    public init?(line: [UInt8]) {
        guard let json = try? JSONValue.parse(line), case .object = json else { return nil }
        if json["platform"]?.stringValue == "android" {
            platform = .android
            apnsID = json["message_id"]?.stringValue ?? ""
            pushType = json["priority"]?.stringValue == "high" ? "voip" : ""
            topic = ""
            priority = json["priority"]?.stringValue == "high" ? 10 : 5
            expiration = json["ttl_s"]?.intValue ?? 0
            let data = json["data"]
            pushID = data?["push_id"]?.stringValue
            caller = data?["caller"]?.stringValue
            callID = data?["call_id"]?.stringValue
            readSealed(data)
            return
        }
        apnsID = json["apns_id"]?.stringValue ?? ""
        pushType = json["push_type"]?.stringValue ?? ""
        topic = json["topic"]?.stringValue ?? ""
        priority = json["priority"]?.intValue ?? 0
        expiration = json["expiration"]?.intValue ?? 0
        let payload = json["payload"]
        pushID = payload?["push_id"]?.stringValue
        caller = payload?["caller"]?.stringValue
        callID = payload?["call_id"]?.stringValue
        readSealed(payload)
    }

    /// The sealed members of an APNs payload or FCM data (where `end_ms` is a string).
    mutating func readSealed(_ fields: JSONValue?) {
        gatewayHash = fields?["gw"]?.stringValue
        endMs = fields?["end_ms"]?.int64Value ?? fields?["end_ms"]?.stringValue.flatMap { Int64($0) }
        callerBlob = fields?["caller_blob"]?.stringValue
    }

    public init(
        apnsID: String, pushID: String?, caller: String?, callID: String?, topic: String = "com.example.astra.voip"
    ) {
        self.apnsID = apnsID
        pushType = "voip"
        self.topic = topic
        priority = 10
        expiration = 0
        self.pushID = pushID
        self.caller = caller
        self.callID = callID
    }
}

/// The device's persistent connection to the APNs emulator (the role of the iPhone's `apsd`):
/// connect, announce `{"token","topic","environment"}` as one JSON line, then read one JSON line
/// per push. The connection belongs to the device, not the app: it stays up while the app is
/// killed, and is closed only when the device goes offline. It is an HTTPLite ``TCPConnection``
/// (a read source on the shared connection queues): no thread is parked in a blocking read for
/// the connection's life (docs/decisions.md D44).
public final class APNsDeviceConnection: Sendable {
    /// Pushes as they arrive, then the end of the connection.
    public let pushes: AsyncStream<DevicePush>
    private let connection: TCPConnection

    private init(connection: TCPConnection, pushes: AsyncStream<DevicePush>) {
        self.connection = connection
        self.pushes = pushes
    }

    /// Connects and announces the phone of `config`: iOS `{"token","topic","environment"}`,
    /// Android `{"platform":"android","token","package","project_id"}`; `replacing` is the token
    /// PushKit rotated away (iOS). Tokens go on the wire only.
    public static func open(_ config: LivePhoneConfig, replacing: String? = nil) async throws(LiveError)
        -> APNsDeviceConnection
    {
        guard config.platform == .android else {
            return try await open(
                host: config.apnsHost, port: config.apnsDevicePort, tokenHex: config.wireToken, topic: config.topic,
                environment: config.environment.rawValue, replacesHex: replacing)
        }
        let hello: JSONObject = [
            "platform": "android", "token": .string(config.wireToken), "package": .string(config.bundleID),
            "project_id": .string(config.fcmProject),
        ]
        return try await open(host: config.apnsHost, port: config.apnsDevicePort, hello: Array((hello.jsonText + "\n").utf8))
    }

    /// Connects and announces the device. `tokenHex` (and `replacesHex`, the token PushKit
    /// rotated away) go on the wire only.
    public static func open(
        host: String = "127.0.0.1", port: UInt16, tokenHex: String, topic: String, environment: String,
        replacesHex: String? = nil
    ) async throws(LiveError) -> APNsDeviceConnection {
        var hello: JSONObject = ["token": .string(tokenHex), "topic": .string(topic), "environment": .string(environment)]
        hello["replaces"] = replacesHex.map(JSONValue.string)
        return try await open(host: host, port: port, hello: Array((hello.jsonText + "\n").utf8))
    }

    /// Connects (a blocking loopback connect, off the cooperative pool), sends the hello line,
    /// and reads pushes.
    private static func open(host: String, port: UInt16, hello: [UInt8]) async throws(LiveError) -> APNsDeviceConnection {
        let opened: Result<TCPConnection, LiveError> = await offPool {
            do throws(HTTPLiteError) {
                return .success(try TCPConnection.connect(host: host, port: port))
            } catch {
                return .failure(LiveError(.network, error.description))
            }
        }
        let connection = try opened.get()
        guard await connection.write(hello, timeoutMs: 2_000) else {
            connection.close()
            throw LiveError(.network, "device hello to \(host):\(port) not sent")
        }
        let (stream, sink) = AsyncStream.makeStream(of: DevicePush.self)
        Task {
            var buffer: [UInt8] = []
            for await event in connection.events {
                guard case .data(let chunk) = event else { break }
                buffer += chunk
                while let newline = buffer.firstIndex(of: 10) {
                    let line = Array(buffer[..<newline])
                    buffer.removeFirst(newline + 1)
                    if line.allSatisfy({ $0 == 32 || $0 == 13 }) { continue }
                    sink.yield(DevicePush(line: line) ?? DevicePush(apnsID: "", pushID: nil, caller: nil, callID: nil))
                }
            }
            sink.finish()
        }
        return APNsDeviceConnection(connection: connection, pushes: stream)
    }

    /// Closes the connection (device offline): the reader ends, the emulator sees the close.
    public func close() { connection.close() }
}
