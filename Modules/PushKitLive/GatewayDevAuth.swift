import Glibc
import JWT
import SIPCore

/// The dev key of a gateway a live run starts itself (docs/wake-gateway.md "Dev mode"): a fresh
/// 256-bit HS256 secret from the CSPRNG in a 0600 file the gateway is started with
/// (`--jwt-hs256-secret-file`), and the phone's bearer tokens minted with it — the same claims
/// the platform's role tokens carry (`asterisk_endpoint`, `role: user`), valid one hour.
public struct GatewayDevAuth: Sendable {
    public let secretFile: String
    let signer: JWTSigner

    /// Writes the secret as 64 hex characters to `<directory>/wakegw-dev.key`.
    public static func create(in directory: String) throws(LiveError) -> GatewayDevAuth {
        let path = directory + "/wakegw-dev.key"
        let text = SecureBytes.hex(KeyMaterial.bytes(32))
        mkdir(directory, 0o700)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw LiveError(.infrastructure, "\(path): \(String(cString: strerror(errno)))") }
        let bytes = Array((text + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw LiveError(.infrastructure, "\(path): short write") }
        do {
            return GatewayDevAuth(secretFile: path, signer: try JWTSigner(key: try JWTKey.hmac(secret: Array(text.utf8))))
        } catch {
            throw LiveError(.infrastructure, "dev JWT: \(error.detail)")
        }
    }

    /// A user token for `endpoint`, valid one hour from now.
    public func bearer(for endpoint: String) -> String? {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let iat = Int64(now.tv_sec)
        return try? signer.sign([
            "sub": .string(endpoint), "asterisk_endpoint": .string(endpoint), "role": .string("user"),
            "iat": .int(iat), "exp": .int(iat + 3_600),
        ])
    }
}
