/// One `auth-param` (RFC 7235 §2.1; RFC 3261 §25.1 `auth-param`): `name=token` or
/// `name="quoted string"`. Names compare case-insensitively; `name` is stored lower-cased.
public struct AuthParam: Sendable, Hashable {
    /// Lower-cased parameter name.
    public var name: String
    /// The value, with quoted-pair escapes removed.
    public var value: String
    /// Whether the value was a quoted-string on the wire.
    public var isQuoted: Bool

    public init(name: String, value: String, isQuoted: Bool) {
        self.name = name.lowercased()
        self.value = value
        self.isQuoted = isQuoted
    }
}
