import AstraJSON
import SIPCore

/// Reads a line from the text of any accepted QR code and writes the compact form
/// (docs/provisioning.md "Accepted payloads"):
/// 1. `astra1:…` compact payload ([CompactPayload]);
/// 2. a line JSON object (`{"v":1,…}`, docs/line.md);
/// 3. a plain `sip:`/`sips:` URI (RFC 3261 §19.1), optionally with `user:password@`;
/// 4. the legacy editor JSON ([LegacyEditorPayload]).
public enum ProvisioningPayload {
    /// Which of the accepted forms a payload was.
    public enum Form: String, Sendable, Hashable {
        case compact, lineJSON = "line-json", sipURI = "sip-uri", legacyEditor = "legacy-editor"
    }

    /// Turns payload text into a line. A sealed password is opened when `key` is given and is
    /// left sealed (`password_sealed`) otherwise.
    public static func line(from text: String, key: SealKey? = nil) throws(ProvisioningError) -> (Line, Form) {
        let trimmed = text.lineTrimmedForPayload()
        var (line, form) = try parse(trimmed)
        if let sealed = line.sealedPassword, let key {
            line.password = try PasswordSeal.open(sealed, key: key, context: sealContext(line))
            line.sealedPassword = nil
        }
        return (line, form)
    }

    static func parse(_ text: String) throws(ProvisioningError) -> (Line, Form) {
        guard !text.isEmpty else { throw ProvisioningError(.notALine, "the code is empty") }
        if CompactPayload.isCompact(text) { return (try CompactPayload.decode(text), .compact) }
        let lower = text.prefix(5).lowercased()
        if lower.hasPrefix("sip:") || lower.hasPrefix("sips:") {
            do {
                return (try Line(addressOfRecord: text), .sipURI)
            } catch {
                throw ProvisioningError(error)
            }
        }
        if text.hasPrefix("{") {
            let object: JSONValue
            do {
                // A code is input from outside: a member named twice is refused, not resolved.
                object = try JSONValue.parse(text, limits: .uniqueKeys)
            } catch {
                throw ProvisioningError(.notALine, "the code holds text that is not a line (\(error))")
            }
            if LegacyEditorPayload.matches(object) { return (try LegacyEditorPayload.decode(object), .legacyEditor) }
            do {
                return (try Line(jsonValue: object), .lineJSON)
            } catch {
                throw ProvisioningError(error)
            }
        }
        throw ProvisioningError(
            .notALine,
            "the code holds \(describe(text)), which is not a line "
                + "(expected astra1:…, a line JSON object or a sip: URI)")
    }

    /// The compact payload for `line`; with `seal`, the clear password is replaced by a sealed one.
    public static func payload(
        for line: Line, seal key: SealKey? = nil, kdf: SealKDF? = nil,
        random: (Int) -> [UInt8] = PasswordSeal.secureRandom
    ) throws(ProvisioningError) -> String {
        var line = line
        if let key, let password = line.password {
            line.sealedPassword = try PasswordSeal.seal(
                password, key: key, kdf: kdf, context: sealContext(line),
                random: random)
            line.password = nil
        }
        return CompactPayload.encode(line)
    }

    /// The associated data a sealed password is bound to: `user@domain`.
    static func sealContext(_ line: Line) -> String { line.user + "@" + line.domain }

    /// What an error says of a payload that is not a line: its length, and its scheme when it
    /// starts with one (a word of letters, digits, `+`, `-`, `.` up to 16 long, then `:`), so a
    /// near miss such as `ASTRA:u=1001;p=…` or `https://…` is recognisable. A code is input from
    /// outside and may hold a password anywhere, even as its first word: nothing else is shown.
    static func describe(_ text: String) -> String {
        var scheme = ""
        var rest = Substring(text)
        while let c = rest.first, scheme.count < 16, c.isASCII, c.isLetter || c.isNumber || "+-.".contains(c) {
            scheme.append(c)
            rest = rest.dropFirst()
        }
        let count = "\(text.count) character" + (text.count == 1 ? "" : "s")
        guard !scheme.isEmpty, rest.first == ":" else { return "text of \(count)" }
        return "\"\(scheme):…\" (\(count))"
    }
}

extension String {
    /// Trims whitespace and a trailing NUL (some generators add one) around a payload.
    func lineTrimmedForPayload() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace || c == "\0" { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace || c == "\0" { s = s.dropLast() }
        return String(s)
    }
}
