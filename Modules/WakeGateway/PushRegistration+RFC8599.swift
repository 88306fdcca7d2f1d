import PushKitEmu

/// RFC 8599 push parameters of a REGISTER's Contact, as a registration: the standard form of the
/// token endpoint (docs/push-wake-rules.md), for the two providers the gateway pushes through.
extension PushRegistration {
    /// `pn-provider=apns` (RFC 8599 §9: `pn-prid` the device token in hex, `pn-param`
    /// `<TeamID>.<bundle id>.voip`) → an iOS registration; `pn-provider=fcm` (§10: `pn-prid` the
    /// FCM registration token, `pn-param` the project the token belongs to) → an Android one,
    /// pushed through FCM HTTP v1 like a `platform: "android"` token from the endpoint. Any other
    /// provider, or a `pn-prid` that is not a token of its provider, is nil (the REGISTER is still
    /// a registration; no push is possible for it).
    public static func rfc8599(
        endpoint: String, provider: String, prid: String?, param: String?, environment: APNsEnvironment, nowMs: Int64
    ) -> PushRegistration? {
        switch provider.lowercased() {
        case "apns":
            guard let token = prid.flatMap(TokenText.normalized) else { return nil }
            return PushRegistration(
                endpoint: endpoint, token: token, environment: environment, bundleID: bundleID(fromPNParam: param),
                platform: "ios", updatedAt: nowMs, source: .rfc8599)
        case "fcm":
            // The FCM message names no app: the token alone addresses it, within the gateway's
            // project; a token of another project is FCM's SENDER_ID_MISMATCH, dropped like any
            // refused token. `pn-param` is not compared: stacks send the project id or its number.
            // No package name travels in RFC 8599, so the registration has no bundle id.
            guard let token = prid.flatMap(FCMTokenText.valid) else { return nil }
            return PushRegistration(
                endpoint: endpoint, token: token, environment: environment, bundleID: "", platform: "android",
                updatedAt: nowMs, source: .rfc8599)
        default:
            return nil
        }
    }

    /// RFC 8599 APNs `pn-param` is `<TeamID>.<bundle id>.voip`; the bundle id without either.
    static func bundleID(fromPNParam param: String?) -> String {
        guard var text = param, !text.isEmpty else { return "com.example.astra" }
        if text.hasSuffix(".voip") { text = String(text.dropLast(5)) }
        let parts = text.split(separator: ".", maxSplits: 1)
        if parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isUppercase || $0.isNumber }) {
            return String(parts[1])
        }
        return text
    }
}
