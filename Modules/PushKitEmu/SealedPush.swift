/// The sealed part of a VoIP push from a gateway that seals its callers
/// (docs/wake-gateway.md "Sealed push", docs/adr/0150-sealed-push.md): the opaque gateway hash,
/// the gateway's end time for the ring, the call ID in clear (the associated data) and the blob —
/// the caller under the gateway's call key. Nothing in it names the caller until it opens.
public struct SealedPush: Sendable, Hashable {
    /// HMAC of the gateway id under its call key (``SealBox/gatewayHash(key:gatewayID:)``):
    /// the phone recognises gateways it joined by it.
    public var gatewayHash: String
    /// The gateway's end time for the ring (ms, virtual clock). The sealed caller carries its own
    /// copy; the phone rings until the earlier of the two.
    public var endMs: Int64
    /// The call ID the blob was sealed for (AES-GCM associated data).
    public var callID: String
    /// nonce ‖ ciphertext ‖ tag.
    public var blob: [UInt8]

    public init(gatewayHash: String, endMs: Int64, callID: String, blob: [UInt8]) {
        self.gatewayHash = gatewayHash
        self.endMs = endMs
        self.callID = callID
        self.blob = blob
    }
}

/// One call key the phone holds, as the app reads it from its keychain: the gateway hash it
/// answers to and the 32-byte key. Handed to the app at every launch
/// (``PushClientPolicy/didReceiveCallKeys(_:_:)``, client protocol `call_keys`).
public struct GatewayCallKey: Sendable, Hashable {
    public var gatewayHash: String
    public var key: [UInt8]
    /// When the gateway's call grant for this phone expires (device clock, ms; -1 = not known):
    /// the app renews it once less than 7 days remain (``CallGrant``, client protocol `renew_grant`).
    public var grantExpiresMs: Int64

    public init(gatewayHash: String, key: [UInt8], grantExpiresMs: Int64 = -1) {
        self.gatewayHash = gatewayHash
        self.key = key
        self.grantExpiresMs = grantExpiresMs
    }
}

/// What is wrong with a sealed push a scenario sends (`sealed_push` step, field `seal_fault`).
public enum SealFault: String, Sendable, Hashable, Codable, CaseIterable {
    /// None: a good sealed push from the phone's gateway that no server call stands behind.
    case none
    /// Sealed by a gateway the phone never joined: its hash matches no key.
    case unknownGateway = "unknown_gateway"
    /// A blob made for another call (replay): it does not open for this push's call ID.
    case wrongCallID = "wrong_call_id"
    /// One byte of the ciphertext changed on the way: the tag does not verify.
    case tampered
    /// From a gateway the phone joined whose call key is gone (a keychain item that does not
    /// survive a restore): the app is not given that key.
    case missingKey = "missing_key"
    /// Opens, but the gateway's end time passed before it reached the phone.
    case late
}

/// The phone's verdict on a sealed push: only ``SealVerdict/opened`` may ring with a caller.
public enum SealVerdict: String, Sendable, Hashable, Codable {
    /// The hash is a joined gateway's, the blob opened for this call ID, the end time is ahead.
    case opened
    /// The hash names no gateway the phone joined.
    case unknownGateway = "unknown_gateway"
    /// The hash is a joined gateway's but the app holds no key for it.
    case missingKey = "missing_key"
    /// The blob did not open (changed, another call's, another key) or is not a caller.
    case unopenable
    /// Opened, but the earlier of the two end times has passed.
    case late

    /// Whether the push may ring as a call with its caller shown.
    public var trusted: Bool { self == .opened }
}
