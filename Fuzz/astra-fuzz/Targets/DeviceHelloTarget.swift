import WakeGateway

/// The hello line a device sends to the wake gateway's push emulator (docs/wake-gateway.md):
/// iOS (hex token, topic, environment) or Android (FCM token, package, project), rotation. Seeds: hellos of the live tests' shape. (The phone's
/// side, `DevicePush(line:)` in PushKitLive, is a few lookups over the same JSON reader that
/// line-json fuzzes; linking PushKitLive would add five modules to the fuzz build.)
///
/// Invariants: an accepted iOS hello has a normalized hex token of 16–512 digits and a `.voip`
/// topic, an Android one a token of FCM's alphabet; a rejection's message is one line (it is sent
/// back to the device).
enum DeviceHelloTarget {
    static let target = FuzzTarget(
        name: "device-hello",
        summary: "wake gateway push emulator: a device's hello line (iOS or Android token, topic, rotation)",
        maxLength: 4096, dictionary: "json",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        switch PushEmulator<ContinuousClock>.parseHello(bytes) {
        case .success(let hello) where hello.platform == .android:
            invariant(FCMTokenText.valid(hello.token) != nil, "accepted a bad FCM token")
            invariant(!hello.project.isEmpty && !hello.topic.isEmpty, "accepted an Android hello without project or package")
        case .success(let hello):
            invariant(
                (16...512).contains(hello.token.count) && hello.token.count % 2 == 0, "accepted a bad token length")
            invariant(
                hello.token.utf8.allSatisfy {
                    (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0)
                }, "accepted a non-hex token")
            invariant(hello.topic.hasSuffix(".voip"), "accepted a topic without .voip")
        case .failure(let error):
            invariant(!error.message.contains("\n") && !error.message.contains("\r"), "hello refusal is not one line")
        }
    }

    static func seeds() -> [[UInt8]] {
        [
            #"{"token":"00112233445566778899aabbccddeeff","topic":"com.example.astra.voip","environment":"sandbox"}"#,
            #"{"token":"00112233445566778899AABBCCDDEEFF0011","topic":"com.example.astra.voip","environment":"production","replaces":"ffeeddccbbaa99887766554433221100"}"#,
            #"{"token":"0011","topic":"x","environment":"moon"}"#,
            #"{"platform":"android","token":"dAbc123:APA91bHUN-x_y","package":"com.example.astra","project_id":"astra-emulator"}"#,
        ].map { Array($0.utf8) }
    }
}
