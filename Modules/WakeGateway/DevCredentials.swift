import JWT
import Synchronization

/// The dev credentials of a gateway whose providers are all the emulator: an ES256 APNs key and an
/// RS256 service-account key, from OpenSSL's CSPRNG, made once per process (RSA-2048 generation
/// costs ~0.1–0.3 s; a test process starts dozens of gateways). Only the emulator accepts them —
/// Apple and Google know nothing of these keys.
enum DevCredentials {
    private static let keys = Mutex<(apns: JWTKey?, fcm: JWTKey?)>((nil, nil))

    static func apnsKey() throws(WakeGatewayError) -> JWTKey {
        try key(\.apns, .es256, "ASTRADEV01")
    }

    static func fcmKey() throws(WakeGatewayError) -> JWTKey {
        try key(\.fcm, .rs256, "astra-dev-key-1")
    }

    private static func key(
        _ slot: WritableKeyPath<(apns: JWTKey?, fcm: JWTKey?), JWTKey?>, _ algorithm: JWTAlgorithm, _ id: String
    ) throws(WakeGatewayError) -> JWTKey {
        let result: Result<JWTKey, JWTError> = keys.withLock { cached in
            if let key = cached[keyPath: slot] { return .success(key) }
            let made = Result { () throws(JWTError) -> JWTKey in try JWTKey.generate(algorithm, keyID: id) }
            if case .success(let key) = made { cached[keyPath: slot] = key }
            return made
        }
        do { return try result.get() } catch { throw WakeGatewayError("dev \(algorithm.rawValue) key: \(error.detail)") }
    }
}
