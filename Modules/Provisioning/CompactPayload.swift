import AstraJSON
import SIPCore

/// The compact, versioned QR payload for a line (docs/provisioning.md):
/// `astra1:u=1001;d=pbx.example.com;t=wss;s=pbx.example.com:8089;p=s3cret`.
///
/// One-letter keys keep codes small (a typical line fits a version 6–8 symbol at level M);
/// values are UTF-8 with `%`, `;` and control characters %-escaped (RFC 3986 §2.1). Fields at
/// their default (transport udp) are left out. Unknown keys are ignored for forward compatibility;
/// a newer prefix (`astra2:`) is refused, and so is a key given twice (`u=1001;u=1002`), as a
/// line JSON with a repeated member is.
public enum CompactPayload {
    public static let prefix = "astra1:"

    /// Payload key for each line field.
    static let keys: [(Line.Field, String)] = [
        (.displayName, "n"), (.user, "u"), (.authUser, "a"), (.password, "p"), (.passwordSealed, "x"),
        (.domain, "d"), (.server, "s"), (.transport, "t"), (.wsPath, "w"), (.outboundProxy, "o"),
        (.expires, "e"), (.caFile, "c"), (.tlsVerify, "k"), (.tlsServerName, "h"), (.pushProvider, "pp"),
        (.pushToken, "pt"), (.pushTopic, "pc"),
    ]

    /// True when `text` starts with `astra<digits>:` (any version), case-insensitively.
    static func isCompact(_ text: String) -> Bool {
        let lower = text.prefix(12).lowercased()
        guard lower.hasPrefix("astra") else { return false }
        let rest = lower.dropFirst(5)
        guard let colon = rest.firstIndex(of: ":") else { return false }
        let digits = rest[..<colon]
        return !digits.isEmpty && digits.allSatisfy(\.isNumber)
    }

    /// The payload text for a line.
    public static func encode(_ line: Line) -> String {
        guard case .object(let members) = line.jsonValue() else { return prefix }
        var fields: [String] = []
        for (field, key) in keys {
            guard let value = members[field.rawValue] else { continue }
            let text: String
            switch value {
            case .string(let s): text = s
            case .number(let n): text = n.text
            case .bool(let b): text = b ? "1" : "0"
            default: continue
            }
            if field == .transport, text == LineTransport.udp.rawValue { continue }
            fields.append(key + "=" + escape(text))
        }
        return prefix + fields.joined(separator: ";")
    }

    /// The line in a compact payload (validated).
    public static func decode(_ text: String) throws(ProvisioningError) -> Line {
        guard text.lowercased().hasPrefix(prefix) else {
            let version = text.prefix(while: { $0 != ":" })
            throw ProvisioningError(
                .unsupportedPayload,
                "payload version \"\(version)\" is not supported (this build reads astra1)")
        }
        var members: JSONObject = ["v": 1]
        // Split on the scalars `;` and `=`, not on Characters: Swift compares Characters by
        // canonical equivalence, and U+037E GREEK QUESTION MARK is equivalent to `;`, so a
        // value holding it (left unescaped by ``escape(_:)``) was cut in two.
        let fields = Substring(text).unicodeScalars.dropFirst(prefix.unicodeScalars.count)
        var seen: Set<String> = []
        for scalars in fields.split(separator: ";") {
            let part = Substring(scalars)
            guard let eq = scalars.firstIndex(of: "=") else {
                throw ProvisioningError(.notALine, "payload field \"\(part.prefix(20))\" has no '='")
            }
            let key = String(Substring(scalars[..<eq]))
            guard let field = keys.first(where: { $0.1 == key })?.0 else { continue }
            guard seen.insert(key).inserted else {
                throw ProvisioningError(.notALine, "payload field \"\(key)\" (\(field.rawValue)) given twice")
            }
            let value = try unescape(Substring(scalars[scalars.index(after: eq)...]))
            switch field {
            // A number literal as a number; anything else as text, which the line model refuses
            // with the field named.
            case .expires: members.append(field.rawValue, JSONNumber(literal: value).map(JSONValue.number) ?? .string(value))
            case .tlsVerify: members.append(field.rawValue, .bool(value != "0" && value.lowercased() != "false"))
            default: members.append(field.rawValue, .string(value))
            }
        }
        do {
            return try Line(jsonValue: .object(members))
        } catch {
            throw ProvisioningError(error)
        }
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == ";" || scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func unescape(_ text: Substring) throws(ProvisioningError) -> String {
        guard let decoded = PercentDecoding.decode(text) else { throw ProvisioningError(.notALine, "payload has a bad %-escape or is not UTF-8") }
        return decoded
    }
}
