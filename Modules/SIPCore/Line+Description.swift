import AstraJSON

/// Redacted printing: `print(line)`, `"\(line)"`, `debugPrint` and `dump` never show secrets.
extension Line: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Line(sip:alice@example.com via wss pbx.example.com:443/ws, auth alice, password set)`.
    public var description: String {
        var parts = ["\(addressOfRecord) via \(transport) \(effectiveServer)\(effectiveWSPath ?? "")"]
        if let displayName { parts.append("display name \"\(displayName)\"") }
        if authUser != nil { parts.append("auth \(effectiveAuthUser)") }
        if let outboundProxy { parts.append("proxy \(outboundProxy)") }
        if let expires { parts.append("expires \(expires)") }
        if password != nil {
            parts.append("password \(Line.redactionMarker)")
        } else if sealedPassword != nil {
            parts.append("password sealed")
        } else {
            parts.append("no password")
        }
        if pushToken != nil { parts.append("push token \(Line.redactionMarker)") }
        return "Line(" + parts.joined(separator: ", ") + ")"
    }

    public var debugDescription: String { description }

    /// `dump(line)` shows the redacted JSON fields, not the stored properties.
    public var customMirror: Mirror {
        guard case .object(let members) = jsonValue(redacted: true) else { return Mirror(self, children: []) }
        return Mirror(
            self, children: members.map { (label: Optional($0.0), value: $0.1.jsonText as Any) },
            displayStyle: .struct)
    }
}
