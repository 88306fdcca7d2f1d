import AstraJSON

/// The gateways the simulated phone joined and the call keys it holds for them (the Keychain,
/// AfterFirstUnlockThisDeviceOnly), and the phone's own verdict on a sealed push.
///
/// The phone never trusts a push on its own (docs/pushkit-emulator.md "Sealed pushes"): the
/// gateway hash must be one it joined, the blob must open under that gateway's key for the
/// push's call ID, and the earlier of the push's and the sealed end time must be ahead. The
/// emulator judges every sealed push with ``CallKeychain/judge(_:now:sealing:)`` and holds the client to the
/// verdict: anything but ``SealVerdict/opened`` is reported as the app's name and ended at once.
/// A pure value.
public struct CallKeychain: Sendable, Hashable {
    /// One gateway the phone joined.
    public struct Gateway: Sendable, Hashable {
        public var id: String
        public var key: [UInt8]
        public var hash: String
        /// False when the key did not survive (a restore to another device): the app is not given it.
        public var keyPresent: Bool
        /// The call grant this gateway holds for the phone.
        public var grant = CallGrant.fresh
    }

    public private(set) var gateways: [Gateway] = []

    public init() {}

    /// The phone joins gateway `id` with call key `key` (32 bytes).
    public mutating func join(_ id: String, key: [UInt8], sealing: any SealBox, keyPresent: Bool = true) {
        gateways.append(Gateway(id: id, key: key, hash: sealing.gatewayHash(key: key, gatewayID: id), keyPresent: keyPresent))
    }

    /// The grant of gateway `index` (in join order).
    public mutating func updateGrant<R>(_ index: Int, _ body: (inout CallGrant) -> R) -> R { body(&gateways[index].grant) }

    /// The gateway `id`, if joined.
    public func gateway(_ id: String) -> Gateway? { gateways.first { $0.id == id } }

    /// The keys the app reads at launch: one per joined gateway whose key is present.
    public var appKeys: [GatewayCallKey] {
        gateways.filter(\.keyPresent).map { GatewayCallKey(gatewayHash: $0.hash, key: $0.key, grantExpiresMs: $0.grant.expiresMs) }
    }

    /// The verdict on `push` reaching the phone at `now`.
    public func judge(_ push: SealedPush, now: Int64, sealing: any SealBox) -> SealVerdict {
        guard let gateway = gateways.first(where: { $0.hash == push.gatewayHash }) else { return .unknownGateway }
        guard gateway.keyPresent else { return .missingKey }
        guard let plain = sealing.open(push.blob, key: gateway.key, callID: push.callID),
            let end = Self.sealedEnd(plain)
        else { return .unopenable }
        return now < min(end, push.endMs) ? .opened : .late
    }

    /// The `end_ms` of an opened caller (`{"uri","user","name","end_ms"}`), nil when it is not one.
    public static func sealedEnd(_ plaintext: [UInt8]) -> Int64? {
        guard let json = try? JSONValue.parse(plaintext), case .string? = json["name"], case .string? = json["user"]
        else { return nil }
        return json["end_ms"]?.int64Value
    }

    /// The caller a gateway seals (the wire form of the JWT module's `SealedCaller`).
    public static func callerPlaintext(user: String, name: String, endMs: Int64) -> [UInt8] {
        var line = JSONLine()
        line.add("uri", "sip:\(user)@pushsim.invalid")
        line.add("user", user)
        line.add("name", name)
        line.add("end_ms", endMs)
        return Array(line.string.utf8)
    }
}
