import AstraJSON
import JWT
import SIPCore

/// What a wake push carries to the phone, as the APNs body and the FCM request (docs/wake-gateway.md
/// "Sealed push"). Pure: the sealing is done by ``CallSeal`` (OpenSSL's AEAD), the rest is text.
///
/// - Clear (a registration without a call key, `--sealed optional`): `push_id`, `caller` (the
///   From user), `call_id` — what every push carried before sealing.
/// - Sealed: `push_id`, `gw` (the opaque gateway hash, ``CallSeal/gatewayHash(key:gatewayID:)``),
///   `end_ms` (wall-clock ms after which the gateway no longer connects the call), `call_id` (the
///   associated data the phone opens with), `caller_blob` (``SealedCaller`` sealed under the call
///   key for that call ID, base64url, always 550 characters) and `pad`: spaces that bring the
///   whole APNs body to ``apnsSealedBytes`` and the whole FCM request body (token and envelope
///   included) to ``fcmSealedBytes``, so the length of what a provider receives says nothing
///   about the caller, the Call-ID or the device token. A push that cannot fit (a Call-ID over
///   the room ``callIDRoom`` leaves, at the least) is not sent: ``fits(fcmToken:ttlSeconds:)``.
///   No caller's URI, user or display name in clear.
public struct WakePushPayload: Sendable, Hashable {
    /// The length of every sealed APNs body (JSON text, bytes), within APNs' 5,120 for VoIP.
    public static let apnsSealedBytes = 2_048
    /// The length of every sealed FCM request body (`{"message":{"token",…,"data",…,"android"}}`,
    /// bytes): within FCM's 4,096, which count the data alone.
    public static let fcmSealedBytes = 2_560
    /// The Call-ID (as JSON text) both sizes leave room for, with the longest FCM token (512
    /// bytes), the longest gateway id in the push-id and any `--fcm-ttl-s`: real Call-IDs are
    /// tens of bytes, RFC 3261 sets no bound.
    public static let callIDRoom = 1_024

    /// The members in order (FCM data values are strings: `end_ms` too).
    public let fields: [(String, String)]
    public let sealed: Bool

    public static func == (a: WakePushPayload, b: WakePushPayload) -> Bool {
        a.sealed == b.sealed && a.fields.elementsEqual(b.fields) { $0 == $1 }
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sealed)
        for (key, value) in fields { hasher.combine(key); hasher.combine(value) }
    }

    /// The clear payload.
    public static func clear(pushID: String, caller: String, callID: String) -> WakePushPayload {
        WakePushPayload(fields: [("push_id", pushID), ("caller", caller), ("call_id", callID)], sealed: false)
    }

    /// The sealed payload of `caller` for `callID` under `sealing`'s call key (a fresh nonce).
    public static func sealed(
        pushID: String, caller: SealedCaller, callID: String, callKey: [UInt8], gatewayID: String
    ) throws(CallSealError) -> WakePushPayload {
        let blob = try caller.sealed(key: callKey, callID: callID)
        return WakePushPayload(
            fields: [
                ("push_id", pushID), ("gw", CallSeal.gatewayHash(key: callKey, gatewayID: gatewayID)),
                ("end_ms", String(caller.endMs)), ("call_id", callID), ("caller_blob", Base64URL.encode(blob)),
            ], sealed: true)
    }

    /// The APNs body: `aps` (empty: a VoIP push shows nothing by itself), the fields (`end_ms` a
    /// number), and for a sealed push the padding to ``apnsSealedBytes``.
    public var apnsBody: String {
        var object: JSONObject = ["aps": [:]]
        for (key, value) in fields {
            object[key] = key == "end_ms" ? (Int64(value).map { .int($0) } ?? .string(value)) : .string(value)
        }
        guard sealed else { return object.jsonText }
        return Self.padded(Self.apnsSealedBytes) { pad in
            var padded = object
            padded["pad"] = .string(pad)
            return padded.jsonText
        }
    }

    /// The FCM request body for `token` (``PushProviders/fcmBody(token:data:ttlSeconds:)``): the
    /// data is `type: "call"` and the fields, and for a sealed push a last `pad` bringing the
    /// whole body to ``fcmSealedBytes``.
    public func fcmBody(token: String, ttlSeconds: Int64) -> String {
        let data = [("type", "call")] + fields
        guard sealed else { return PushProviders.fcmBody(token: token, data: data, ttlSeconds: ttlSeconds) }
        return Self.padded(Self.fcmSealedBytes) { pad in
            PushProviders.fcmBody(token: token, data: data + [("pad", pad)], ttlSeconds: ttlSeconds)
        }
    }

    /// Whether the push is as long as every other of its kind: always for a clear push; for a
    /// sealed one, whether its body (the APNs one, or the FCM one for `fcmToken`) fits its size.
    public func fits(fcmToken: String?, ttlSeconds: Int64) -> Bool {
        guard sealed else { return true }
        if let fcmToken { return fcmBody(token: fcmToken, ttlSeconds: ttlSeconds).utf8.count == Self.fcmSealedBytes }
        return apnsBody.utf8.count == Self.apnsSealedBytes
    }

    /// The text `render` makes with a `pad` of spaces that brings it to `size` bytes (spaces are
    /// one byte each in JSON, unescaped); with an empty `pad` when it is longer already.
    static func padded(_ size: Int, _ render: (String) -> String) -> String {
        let length = render("").utf8.count
        return render(length < size ? String(repeating: " ", count: size - length) : "")
    }
}
