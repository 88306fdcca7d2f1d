import Glibc
import JWT
import PushKitEmu
import SIPCore

/// What a live phone gives a gateway that seals its callers (`astra-pushsim live … --sealed`,
/// docs/wake-gateway.md "Sealed push", docs/adr/0150-sealed-push.md, 0152): a P-256 device key,
/// a call grant that key signed for this gateway (ES256, 14 days) and a 32-byte call key. All
/// three come from the operating system's CSPRNG (`JWTKey.generate`, `KeyMaterial.bytes`),
/// never from the run's seed, and travel only in the token request body: ``description`` shows
/// none of them.
///
/// `fault` is what happens to the phone's copy of each sealed push on the way (the
/// `SealFault` vocabulary of virtual mode's `sealed_push` steps): `wrong_call_id` changes the
/// call ID (the blob no longer opens for it), `tampered` one byte of the ciphertext.
public struct LiveSealing: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The gateway id the grant names and the gateway hash is made with (the gateway's
    /// `--gateway-id`, by default `astra-wakegw`).
    public let gatewayID: String
    /// base64url SPKI DER of the device key.
    let deviceKey: String
    /// The compact JWS the device key signed for ``gatewayID``.
    let grant: String
    /// The 32-byte call key.
    let callKey: [UInt8]
    /// What happens to the phone's copy of a sealed push.
    public var fault: SealFault

    /// The faults a live run can put on the way (the others need a second gateway or a clock).
    public static let liveFaults: [SealFault] = [.none, .wrongCallID, .tampered]

    /// A fresh device key, grant (`endpoint`, now … now + 14 days, wall clock) and call key.
    public static func make(endpoint: String, gatewayID: String = "astra-wakegw", fault: SealFault = .none)
        throws(LiveError) -> LiveSealing
    {
        do throws(JWTError) {
            let key = try JWTKey.generate(.es256)
            let now = wallNowMs() / 1_000
            let grant = try CallGrantChecker.mint(
                deviceKey: key, gatewayID: gatewayID, endpoint: endpoint, issuedAt: now, expiresAt: now + 14 * 86_400)
            return LiveSealing(
                gatewayID: gatewayID, deviceKey: Base64URL.encode(try key.spkiDER()), grant: grant,
                callKey: KeyMaterial.bytes(CallSeal.keyBytes), fault: fault)
        } catch {
            throw LiveError(.infrastructure, "could not make the device key and grant")
        }
    }

    /// The token request's sealing members (`device_key`, `grant`, `call_key`).
    var offer: [(String, String)] {
        [("device_key", deviceKey), ("grant", grant), ("call_key", Base64URL.encode(callKey))]
    }

    /// The phone's keychain: it joined this gateway with this call key.
    public var keychain: CallKeychain {
        var keychain = CallKeychain()
        keychain.join(gatewayID, key: callKey, sealing: CallSealBox())
        return keychain
    }

    /// The sealed part of `delivered` as the phone gets it (``fault`` applied), nil for a clear
    /// push. The gateway's `end_ms` is wall-clock ms; the phone's clock is the run's timeline, so
    /// it is carried over: `end − wallNowMs + timelineNowMs`.
    public func sealedPush(_ delivered: DevicePush, wallNowMs: Int64, timelineNowMs: Int64) -> SealedPush? {
        guard let hash = delivered.gatewayHash, let end = delivered.endMs, let callID = delivered.callID,
            let text = delivered.callerBlob
        else { return nil }
        var blob = Base64URL.decode(text) ?? []
        var id = callID
        switch fault {
        case .wrongCallID: id = "replayed-" + callID
        case .tampered where blob.count > 20: blob[16] ^= 0x01
        default: break
        }
        return SealedPush(gatewayHash: hash, endMs: end - wallNowMs + timelineNowMs, callID: id, blob: blob)
    }

    public var description: String { "LiveSealing(gateway \(gatewayID), fault \(fault.rawValue), keys <redacted>)" }
    public var debugDescription: String { description }
}

extension LiveSealing {
    /// Wall-clock ms since 1970 (the gateway's `end_ms` is on this clock).
    public static func wallNowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
