/// One `Authorization` / `Proxy-Authorization` header to add to a request, with its
/// trace-safe rendering. `description` and mirrors show only ``redactedValue``.
public struct DigestHeaderField: Sendable, Hashable {
    /// `Authorization` or `Proxy-Authorization`.
    public var name: String
    /// The value to put on the wire.
    public var value: String
    /// The value with `response="<redacted>"`, for SIP traces and logs.
    public var redactedValue: String

    public init(name: String, authorization: DigestAuthorization) {
        self.name = name
        value = authorization.headerValue
        redactedValue = authorization.redacted
    }
}

extension DigestHeaderField: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { name + ": " + redactedValue }
    public var debugDescription: String { "DigestHeaderField(\(description))" }
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "value": redactedValue], displayStyle: .struct)
    }
}
