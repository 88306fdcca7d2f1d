import AstraJSON
import Glibc
import SIPCore

/// Where a ``PlatformClient`` keeps its org JWT between runs, so consecutive `astra-qr lines`
/// calls reuse one 24 h token instead of signing in each time.
public protocol PlatformSessionStore: Sendable {
    /// The stored session for `api`, if any (expired ones too: the client checks expiry).
    func load(api: String) -> PlatformSession?
    /// Replaces the stored session.
    func save(_ session: PlatformSession, api: String)
}

/// A session cache file (`astra-qr lines --token-cache FILE`): one JSON object
/// `{"api":…,"token":…,"user_id":…,"expires_at":<seconds since 1970>}`, written with mode 0600
/// (it holds a bearer token). A file for another API URL, or unreadable, counts as empty.
public struct FileSessionStore: PlatformSessionStore {
    public let path: String

    public init(path: String) { self.path = path }

    public func load(api: String) -> PlatformSession? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        guard let json = try? JSONValue.parse(bytes), PlatformJSON.string(json["api"]) == api,
            let token = PlatformJSON.string(json["token"]), !token.isEmpty,
            let expires = PlatformJSON.string(json["expires_at"]).flatMap(Double.init)
        else { return nil }
        return PlatformSession(token: token, userID: PlatformJSON.string(json["user_id"]), expiresAt: expires)
    }

    public func save(_ session: PlatformSession, api: String) {
        var members: JSONObject = ["api": .string(api), "token": .string(session.token)]
        if let user = session.userID { members["user_id"] = .string(user) }
        members["expires_at"] = .int(Int(session.expiresAt))
        let bytes = Array((members.jsonText + "\n").utf8)
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        if written == bytes.count { rename(temporary, path) } else { unlink(temporary) }
    }
}
