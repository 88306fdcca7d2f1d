import AstraJSON

/// What a sealed push says about the caller, and what the phone shows once the blob opened:
/// the From URI, its user part (a number, an extension), the display name, and the gateway's end
/// time for the ring (ms since 1970). Its wire form is a JSON object
/// `{"uri","user","name","end_ms"}` (UTF-8, at most ``CallSeal/paddedBytes`` − 1 bytes), sealed by
/// ``CallSeal``. Pure.
public struct SealedCaller: Sendable, Hashable {
    public var uri: String
    public var user: String
    public var name: String
    public var endMs: Int64

    public init(uri: String, user: String, name: String, endMs: Int64) {
        self.uri = uri
        self.user = user
        self.name = name
        self.endMs = endMs
    }

    /// The JSON text, shortened to fit the padded size: the longest of name, URI and user loses
    /// characters from its end until the whole fits (a long display name is cut, never refused —
    /// a call must still ring).
    public var plaintext: [UInt8] {
        var caller = self
        while true {
            let bytes = Array(caller.json.jsonText.utf8)
            if bytes.count < CallSeal.paddedBytes { return bytes }
            if caller.name.utf8.count >= max(caller.uri.utf8.count, caller.user.utf8.count) {
                caller.name.removeLast()
            } else if caller.uri.utf8.count >= caller.user.utf8.count {
                caller.uri.removeLast()
            } else {
                caller.user.removeLast()
            }
        }
    }

    var json: JSONValue {
        ["uri": .string(uri), "user": .string(user), "name": .string(name), "end_ms": .int(endMs)]
    }

    /// The caller of an opened blob's plaintext, or nil when it is not that object.
    public init?(plaintext: [UInt8]) {
        guard let json = try? JSONValue.parse(plaintext), case .string(let uri)? = json["uri"],
            case .string(let user)? = json["user"], case .string(let name)? = json["name"],
            let end = json["end_ms"]?.int64Value
        else { return nil }
        self.init(uri: uri, user: user, name: name, endMs: end)
    }

    /// Seals this caller for `callID` under `key` (a fresh nonce).
    public func sealed(key: [UInt8], callID: String) throws(CallSealError) -> [UInt8] {
        try CallSeal.seal(plaintext, key: key, callID: callID)
    }
}
