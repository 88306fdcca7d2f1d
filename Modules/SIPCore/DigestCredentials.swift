/// A username and password for digest authentication (RFC 3261 §22.1, RFC 7616 §3.4).
///
/// The password never appears in `description`, `debugDescription`, `dump` or mirrors.
/// Strings are hashed as UTF-8 (RFC 7616 §3.4.1 with `charset=UTF-8`; SIP is UTF-8 throughout).
public struct DigestCredentials: Sendable, Hashable {
    /// The authentication username (RFC 3261 §22.4 `username`), not necessarily the AOR user.
    public var username: String
    /// The secret. Never printed.
    public var password: String
    /// When set, these credentials answer only challenges for this realm (RFC 3261 §22.1).
    public var realm: String?

    public init(username: String, password: String, realm: String? = nil) {
        self.username = username
        self.password = password
        self.realm = realm
    }

    /// Whether these credentials may answer a challenge for `realm`.
    public func applies(to realm: String) -> Bool { self.realm == nil || self.realm == realm }
}

extension DigestCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "DigestCredentials(username: \(username), password: <redacted>" + (realm.map { ", realm: \($0))" } ?? ")")
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self, children: ["username": username, "password": "<redacted>", "realm": realm as Any],
            displayStyle: .struct)
    }
}
