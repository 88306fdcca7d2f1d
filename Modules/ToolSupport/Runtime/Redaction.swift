/// Removes secrets from diagnostic text: passwords, digest `response=`, bearer tokens, SDES keys,
/// ICE passwords, push tokens, passwords in URIs, PEM private keys, and secret fields of line JSON.
///
/// Call it on anything that may reach stderr or a log: SIP traces, error messages, line JSON.
/// Only the secret value is replaced (by ``placeholder``); names and structure stay readable.
public enum Redaction {
    /// What a secret is replaced with.
    public static let placeholder = "<redacted>"

    /// Key names whose values are secrets (`password=…`, `"password":"…"`, `password: …`).
    static let secretKeys = [
        "password", "passwd", "pwd", "secret", "auth_password", "ha1", "sealed", "token", "push_token",
        "device_token", "voip_token", "access_token", "refresh_token", "api_key", "apikey", "key",
        "private_key", "call_key", "pn-prid", "pn_prid", "turn_password", "turn-password",
    ]

    /// `text` with every recognised secret replaced by ``placeholder``.
    public static func redact(_ text: String) -> String {
        var result = text
        let keys = secretKeys.joined(separator: "|")
        // "password": "…" (JSON) and password="…" (escaped quotes inside the value are skipped).
        let quoted = try! Regex(#"(?i)(\b(?:\#(keys))"?\s*[=:]\s*")(?:[^"\\]|\\.)*""#)
        result = result.replacing(quoted) { match in "\(match.output[1].substring ?? "")\(placeholder)\"" }
        // password=…, password: …, ;pn-prid=…, "key":123 (stops at whitespace, quote, , ; & > } ]).
        let bare = try! Regex(#"(?i)(\b(?:\#(keys))"?\s*[=:]\s*)(?!<redacted>)[^\s",;&>}\]]+"#)
        result = result.replacing(bare) { match in "\(match.output[1].substring ?? "")\(placeholder)" }
        // Digest response="…" (RFC 3261 §22.4, RFC 7616 §3.4): the secret-derived part of the header.
        let response = try! Regex(#"(?i)(\bresponse\s*=\s*")[^"]*""#)
        result = result.replacing(response) { match in "\(match.output[1].substring ?? "")\(placeholder)\"" }
        let bareResponse = try! Regex(#"(?i)(\bresponse\s*=\s*)[0-9a-f]{32,}"#)
        result = result.replacing(bareResponse) { match in "\(match.output[1].substring ?? "")\(placeholder)" }
        // Authorization: Bearer … / Basic …
        let bearer = try! Regex(#"(?i)(\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]+"#)
        result = result.replacing(bearer) { match in "\(match.output[1].substring ?? "")\(placeholder)" }
        // SDES a=crypto:… inline:KEY|… (RFC 4568 §6.1) and a=ice-pwd:… (RFC 8839).
        let inline = try! Regex(#"(?i)(\binline:)[A-Za-z0-9+/=]+"#)
        result = result.replacing(inline) { match in "\(match.output[1].substring ?? "")\(placeholder)" }
        let icePassword = try! Regex(#"(?i)(\bice-pwd:)\S+"#)
        result = result.replacing(icePassword) { match in "\(match.output[1].substring ?? "")\(placeholder)" }
        // sip:user:password@host, https://user:password@host (RFC 3261 §19.1.1).
        let uriPassword = try! Regex(#"(?i)(\b(?:sips?:|turns?:|(?:wss?|https?)://)[^\s:@/;<>"]+:)[^\s@/;<>"]+(@)"#)
        result = result.replacing(uriPassword) { match in
            "\(match.output[1].substring ?? "")\(placeholder)\(match.output[2].substring ?? "")"
        }
        // PEM private keys (TLS keys, APNs .p8 auth keys): keep the armour lines, drop the body.
        let pem = try! Regex(#"(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----)"#)
        result = result.replacing(pem) { match in
            "\(match.output[1].substring ?? "")\(placeholder)\(match.output[2].substring ?? "")"
        }
        return result
    }
}
