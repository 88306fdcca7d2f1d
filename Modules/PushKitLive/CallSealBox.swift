import JWT
import PushKitEmu

/// PushKitEmu's `SealBox` as the wake gateway seals: AES-256-GCM with the call ID as
/// associated data and the HMAC gateway hash (the JWT module's `CallSeal`,
/// docs/adr/0150-sealed-push.md). astra-pushsim seals with it whenever a client process is
/// judged, so the client opens real blobs with its own AES-GCM (Python `cryptography`, CryptoKit).
public struct CallSealBox: SealBox {
    public init() {}

    public var name: String { "aes-256-gcm" }

    public func seal(_ plaintext: [UInt8], key: [UInt8], callID: String, nonce: [UInt8]) -> [UInt8] {
        // The simulated gateway draws its nonce from the run's seed (reproducible runs); keys and
        // callers are simulated ones. A failure (a key that is not 32 bytes) seals nothing.
        (try? CallSeal.seal(plaintext, key: key, callID: callID, nonce: nonce)) ?? []
    }

    public func open(_ blob: [UInt8], key: [UInt8], callID: String) -> [UInt8]? {
        try? CallSeal.open(blob, key: key, callID: callID)
    }

    public func gatewayHash(key: [UInt8], gatewayID: String) -> String {
        CallSeal.gatewayHash(key: key, gatewayID: gatewayID)
    }
}
