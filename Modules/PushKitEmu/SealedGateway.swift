/// How the emulator's gateway seals (option `server.sealed`), the way the wake gateway does
/// (docs/wake-gateway.md "Sealed push"): the caller of call `c` as `{"uri","user","name","end_ms"}`
/// under the phone's call key for this gateway, the call ID `call-c@pushsim.invalid` as
/// associated data, the gateway hash and its end time beside it in clear.
public enum SealedGateway {
    /// The id of the gateway the phone joined.
    public static let mainID = "gw-pushsim"
    /// The id of a gateway the phone never joined (``SealFault/unknownGateway``).
    public static let strangerID = "gw-elsewhere"
    /// The id of a gateway the phone joined whose key is gone (``SealFault/missingKey``).
    public static let restoredID = "gw-restored"
    /// How long after sending the gateway lets the phone ring (its end time).
    public static let ringWindowMs: Int64 = 30_000
    /// How long before the push was sent the end time of a ``SealFault/late`` push passed.
    public static let lateByMs: Int64 = 1_000

    /// The call ID a sealed push carries for server call `call` (raw pushes: `raw-P`).
    public static func callID(call: Int32) -> String { "call-\(call)@pushsim.invalid" }
    public static func rawCallID(push: Int32) -> String { "raw-\(push)@pushsim.invalid" }

    /// A fresh simulated 32-byte call key.
    static func key(using rng: inout SplitMix64) -> [UInt8] { bytes(32, using: &rng) }

    static func bytes(_ n: Int, using rng: inout SplitMix64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(n + 7)
        while out.count < n {
            let w = rng.next()
            for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: w >> UInt64(k * 8))) }
        }
        return Array(out.prefix(n))
    }
}
