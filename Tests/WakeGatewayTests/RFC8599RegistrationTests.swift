import PushKitEmu
import Testing

@testable import WakeGateway

/// RFC 8599 Contact parameters → the registration the gateway pushes with (§9 APNs, §10 FCM).
@Suite struct RFC8599RegistrationTests {
    static let hex = String(repeating: "ab12", count: 16)
    static let fcm = "eTgyI1vNRYs:APA91bG4g3QzXI8opChSFfwz3vS6GQN8WfcOA-SEL6bFDje79UEu2wft3E"

    func registration(_ provider: String, _ prid: String?, _ param: String?) -> PushRegistration? {
        PushRegistration.rfc8599(
            endpoint: "1040", provider: provider, prid: prid, param: param, environment: .sandbox, nowMs: 7)
    }

    @Test func apnsIsAnIOSRegistrationWithTheBundleFromPNParam() throws {
        let r = try #require(registration("apns", Self.hex.uppercased(), "ASTRATEAM1.com.example.astra.voip"))
        #expect(r.platform == "ios" && !r.isAndroid && r.source == .rfc8599 && r.updatedAt == 7)
        #expect(r.token == Self.hex)  // lowercase hex, as APNs wants it in the path
        #expect(r.bundleID == "com.example.astra" && r.topic == "com.example.astra.voip")
    }

    @Test func fcmIsAnAndroidRegistrationWithTheTokenAsGiven() throws {
        let r = try #require(registration("FCM", Self.fcm, "929724111839"))
        #expect(r.isAndroid && r.source == .rfc8599 && r.endpoint == "1040")
        #expect(r.token == Self.fcm)  // FCM tokens are case-sensitive: never lowercased
        #expect(r.bundleID.isEmpty)  // RFC 8599 carries no package name
        #expect(!r.redactedToken.contains(":APA91b"))
    }

    @Test func aPRIDThatIsNoTokenOfItsProviderOrAnotherProviderIsNothing() {
        #expect(registration("apns", Self.fcm, nil) == nil)  // not hex
        #expect(registration("apns", nil, nil) == nil)
        #expect(registration("fcm", "short", nil) == nil)
        #expect(registration("fcm", "bad token with spaces and more", nil) == nil)
        #expect(registration("fcm", String(repeating: "a", count: 513), nil) == nil)
        #expect(registration("webpush", Self.fcm, nil) == nil)  // RFC 8599 §11: not a provider here
    }
}
