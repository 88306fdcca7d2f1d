import AstraJSON
import JWT
import SIPCore
import Testing

@testable import WakeGateway

/// The sealed push's one length (docs/wake-gateway.md "What a sealed push carries"): the APNs body
/// and the whole FCM request body are each one size, whatever the caller, the Call-ID (up to the
/// room), the device token and the gateway id; the sizes are within the providers' limits; a
/// Call-ID over the room does not fit (the gateway then does not send the push). Pure.
@Suite struct WakePushPayloadTests {
    static let key = KeyMaterial.bytes(CallSeal.keyBytes)

    static func payload(callID: String, gateway: String = "astra-wakegw", name: String = "Patient") throws -> WakePushPayload {
        let pushID = "p" + String(repeating: "0", count: 48) + "-" + String(gateway.prefix(16))
        let caller = SealedCaller(uri: "sip:+447700900123@ward.hospital.example", user: "+447700900123", name: name, endMs: 1_780_000_000_000)
        return try WakePushPayload.sealed(pushID: pushID, caller: caller, callID: callID, callKey: key, gatewayID: gateway)
    }

    @Test func everySealedBodyIsOneLengthWithinTheLimits() throws {
        #expect(WakePushPayload.apnsSealedBytes <= 5_120)
        #expect(WakePushPayload.fcmSealedBytes <= 4_096)
        let tokens = ["short_fcm_token_", "eLong:" + String(repeating: "x", count: 506)]
        var apns = Set<Int>(), fcm = Set<Int>()
        for (n, length) in [1, 10, 100, 500, WakePushPayload.callIDRoom].enumerated() {
            let callID = String(repeating: "c", count: length)
            let payload = try Self.payload(callID: callID, gateway: n % 2 == 0 ? "g" : "gateway_sixteen_", name: String(repeating: "N", count: n * 40))
            #expect(payload.fits(fcmToken: nil, ttlSeconds: 0))
            apns.insert(payload.apnsBody.utf8.count)
            for token in tokens {
                for ttl: Int64 in [0, 2_419_200] {
                    #expect(payload.fits(fcmToken: token, ttlSeconds: ttl), "call id \(length), token \(token.count), ttl \(ttl)")
                    let body = payload.fcmBody(token: token, ttlSeconds: ttl)
                    fcm.insert(body.utf8.count)
                    // Still the FCM message it was: the data values are strings, `type` first.
                    let data = try #require(try JSONValue.parse(body)["message"]?["data"])
                    #expect(data["type"] == .string("call") && data["call_id"] == .string(callID))
                    #expect(data["end_ms"] == .string("1780000000000"))
                }
            }
            #expect(try JSONValue.parse(payload.apnsBody)["end_ms"]?.intValue == 1_780_000_000_000)
        }
        #expect(apns == [WakePushPayload.apnsSealedBytes])
        #expect(fcm == [WakePushPayload.fcmSealedBytes])
    }

    /// A Call-ID far over the room makes a body that cannot be the one length: it does not fit.
    @Test func aCallIDOverTheRoomDoesNotFit() throws {
        let payload = try Self.payload(callID: String(repeating: "c", count: 3_000))
        #expect(!payload.fits(fcmToken: nil, ttlSeconds: 0))
        #expect(!payload.fits(fcmToken: "short_fcm_token_", ttlSeconds: 0))
    }

    /// A clear push is as before: no padding, the caller in clear.
    @Test func aClearPushIsNotPadded() throws {
        let payload = WakePushPayload.clear(pushID: "p1", caller: "1001", callID: "c1")
        #expect(payload.fits(fcmToken: "short_fcm_token_", ttlSeconds: 0))
        #expect(payload.apnsBody == #"{"aps":{},"push_id":"p1","caller":"1001","call_id":"c1"}"#)
        #expect(payload.fcmBody(token: "t", ttlSeconds: 0).contains(#""data":{"type":"call","push_id":"p1","caller":"1001","call_id":"c1"}"#))
    }
}
