import PushKitLive
import WakeGateway

/// Both ends of the APNs emulator's device connection (docs/pushkit-emulator.md "Live mode"):
/// the hello line a device sends to the gateway's APNs emulator (token, topic, environment,
/// rotation) and the push line the emulator delivers to the phone. Seeds: hellos and pushes of
/// the live tests' shape.
///
/// Invariants: an accepted hello has a normalized hex token of 16–512 digits and a `.voip`
/// topic; a rejection's message is one line (it is sent back to the device).
enum DeviceHelloTarget {
    static let target = FuzzTarget(
        name: "device-hello",
        summary: "APNs emulator device hello (gateway side) and delivered push line (phone side)",
        maxLength: 4096, dictionary: "json",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        switch APNsEmulator<ContinuousClock>.parseHello(bytes) {
        case .success(let hello):
            invariant((16...512).contains(hello.token.count) && hello.token.count % 2 == 0, "accepted a bad token length")
            invariant(hello.token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }, "accepted a non-hex token")
            invariant(hello.topic.hasSuffix(".voip"), "accepted a topic without .voip")
        case .failure(let error):
            invariant(!error.message.contains("\n") && !error.message.contains("\r"), "hello refusal is not one line")
        }
        if let push = DevicePush(line: bytes) { _ = (push.apnsID, push.pushID, push.caller, push.callID, push.priority) }
    }

    static func seeds() -> [[UInt8]] {
        [
            #"{"token":"00112233445566778899aabbccddeeff","topic":"com.example.astra.voip","environment":"sandbox"}"#,
            #"{"token":"00112233445566778899AABBCCDDEEFF0011","topic":"com.example.astra.voip","environment":"production","replaces":"ffeeddccbbaa99887766554433221100"}"#,
            #"{"token":"0011","topic":"x","environment":"moon"}"#,
            #"{"apns_id":"6D9A1F3C-0000-4000-8000-000000000001","push_type":"voip","topic":"com.example.astra.voip","priority":10,"expiration":0,"payload":{"push_id":"p-1","caller":"1001","call_id":"abc@192.0.2.1"}}"#,
        ].map { Array($0.utf8) }
    }
}
