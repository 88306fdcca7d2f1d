import AstraJSON
import JWT
import SIPCore

/// What a wake push carries to the phone, as the APNs body and the FCM data (docs/wake-gateway.md
/// "Sealed push"). Pure: the sealing is done by ``CallSeal`` (OpenSSL's AEAD), the rest is text.
///
/// - Clear (a registration without a call key, `--sealed optional`): `push_id`, `caller` (the
///   From user), `call_id` — what every push carried before sealing.
/// - Sealed: `push_id`, `gw` (the opaque gateway hash, ``CallSeal/gatewayHash(key:gatewayID:)``),
///   `end_ms` (wall-clock ms after which the gateway no longer connects the call), `call_id` (the
///   associated data the phone opens with), `caller_blob` (``SealedCaller`` sealed under the call
///   key for that call ID, base64url, always 550 characters) and `pad`: spaces that bring the APNs
///   body and the FCM data object to ``sealedBytes`` each, so a push's length says nothing about
///   the call (a Call-ID too long to fit makes the push longer, never refused). No caller's URI,
///   user or display name in clear.
public struct WakePushPayload: Sendable, Hashable {
    /// The length of every sealed APNs body and every sealed FCM data object (JSON text, bytes):
    /// room for a Call-ID of about 400 bytes; within APNs' 5,120 bytes for VoIP and FCM's 4,096.
    public static let sealedBytes = 1_280

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
    /// number), and for a sealed push the padding to ``sealedBytes``.
    public var apnsBody: String {
        var object: JSONObject = ["aps": [:]]
        for (key, value) in fields {
            object[key] = key == "end_ms" ? (Int64(value).map { .int($0) } ?? .string(value)) : .string(value)
        }
        return sealed ? Self.padded(object) : object.jsonText
    }

    /// The FCM data object's members, padded for a sealed push so the object is ``sealedBytes``.
    public var fcmData: [(String, String)] {
        guard sealed else { return fields }
        var object = JSONObject(fields.map { (key: $0.0, value: .string($0.1)) })
        object["pad"] = ""
        let pad = Self.sealedBytes - object.jsonText.utf8.count
        return fields + [("pad", String(repeating: " ", count: max(0, pad)))]
    }

    /// `object` with a last member `pad` of spaces making its JSON text ``sealedBytes`` long
    /// (or an empty `pad` when it is longer already).
    static func padded(_ object: JSONObject) -> String {
        var object = object
        object["pad"] = ""
        let length = object.jsonText.utf8.count
        if length < sealedBytes { object["pad"] = .string(String(repeating: " ", count: sealedBytes - length)) }
        return object.jsonText
    }
}
