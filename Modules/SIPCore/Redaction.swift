/// The one redactor: removes secrets from any text that may reach stderr, a log or a trace —
/// SIP messages (`--sip-trace`), diagnostics, tool output, the wake gateway's logs.
///
/// What it removes (only the secret value is replaced, by ``placeholder``; names and structure
/// stay readable):
/// - values of secret keys in `key=value`, `key: value` and JSON `"key":"value"` form
///   (``secretKeys``: passwords, tokens, API keys, `pn-prid` push tokens, TURN passwords,
///   `a=ice-pwd` ICE passwords, …); a quoted value ends at its closing quote or at the end of
///   its line (neither a SIP quoted-string nor a JSON string holds a bare CR or LF);
/// - digest `response` and `rspauth` (RFC 3261 §22.4, RFC 7616 §3.4, §3.5): the values derived
///   from the password (`nonce`, `cnonce`, `opaque` carry no secret and stay, for debugging);
/// - every `inline:` key of an SDES `a=crypto` line (RFC 4568 §6.1: several per line);
/// - `Bearer`/`Basic` credentials (RFC 6750 §2.1, RFC 7617) and any JWT (`eyJ….….…`, RFC 7519);
/// - passwords in URIs: `sip:user:password@host`, `turn:`, `ws(s)://`, `http(s)://`,
///   `postgres(ql)://` (libpq connection URIs) (RFC 3261 §19.1.1, RFC 3986 §3.2.1);
/// - the body of a PEM private key (TLS keys, APNs `.p8` keys).
///
/// It is a single forward scan over the UTF-8 bytes with a table lookup per byte: no `Regex`
/// is built (one that compiled nine patterns per call was 82 % of a one-shot registration's
/// instructions), and text without a secret is returned as it came, without a copy.
/// Redacting twice changes nothing: every rule reads the text as it is written out (after a
/// placeholder a word starts), and a value that is exactly the placeholder is passed over.
public enum Redaction {
    /// What a secret is replaced with.
    public static let placeholder = "<redacted>"

    /// Key names whose values are secrets, lower case (matched case-insensitively, as a whole
    /// word: `monkey=` is not `key=`, `ice-pwd:` is `pwd:`).
    public static let secretKeys = [
        "password", "passwd", "pwd", "ice-pwd", "secret", "client_secret", "auth_password", "ha1", "sealed",
        "password_sealed", "token", "push_token", "device_token", "voip_token", "access_token", "refresh_token",
        "id_token", "firebase_token", "api_key", "apikey", "key", "private_key", "call_key", "pn-prid", "pn_prid",
        "turn_password", "turn-password", "passphrase",
    ]

    /// `text` with every recognised secret replaced by ``placeholder``.
    public static func redact(_ text: String) -> String {
        var text = text
        let result = text.withUTF8 { RedactionScanner.redact($0) }
        guard let result else { return text }
        return String(decoding: result, as: UTF8.self)
    }

    /// The bytes of a SIP message or other UTF-8 text with every recognised secret replaced.
    public static func redact(bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { RedactionScanner.redact($0) } ?? bytes
    }

    /// Text that came from outside (a server's error body, a peer's reason phrase), made safe to
    /// print on one line: redacted, every control character (C0, DEL, C1: ESC, BEL, CR, LF…)
    /// replaced by a space, and cut to `limit` characters (an ellipsis marks the cut).
    public static func untrusted(_ text: String, limit: Int = 300) -> String {
        var out = ""
        var count = 0
        for scalar in redact(text).unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            let v = scalar.value
            out.unicodeScalars.append(v < 0x20 || (0x7F...0x9F).contains(v) ? " " : scalar)
            count += 1
        }
        return out
    }
}
