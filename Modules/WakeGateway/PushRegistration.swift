import PushKitEmu

/// One endpoint's VoIP push registration, from `POST /api/v1/users/voip-push-token` or from an
/// RFC 8599 REGISTER (`pn-provider=apns;pn-prid=<token>;pn-param=<TeamID>.<bundle>.voip`).
public struct PushRegistration: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable {
        /// The token endpoint (docs/push-wake-rules.md contract).
        case api
        /// RFC 8599 Contact URI parameters of the endpoint's last REGISTER.
        case rfc8599
    }

    /// The SIP user (`asterisk_endpoint`), e.g. `1001`.
    public var endpoint: String
    /// The device token: APNs lowercase hex, or an FCM registration token as given. Never
    /// printed: use ``redactedToken``.
    public var token: String
    public var environment: APNsEnvironment
    /// The app's bundle id; the VoIP topic is `bundleID + ".voip"`.
    public var bundleID: String
    public var platform: String
    /// Wall-clock ms since 1970 of the last change.
    public var updatedAt: Int64
    public var source: Source
    /// The device key, call grant and call key the phone gave (ADR 0152): its pushes carry the
    /// caller sealed. nil: clear pushes (`--sealed optional`) or none (`required`).
    public var sealing: PushSealing?

    public init(
        endpoint: String, token: String, environment: APNsEnvironment, bundleID: String, platform: String,
        updatedAt: Int64, source: Source = .api, sealing: PushSealing? = nil
    ) {
        self.endpoint = endpoint
        self.token = platform == "android" ? token : token.lowercased()
        self.environment = environment
        self.bundleID = bundleID
        self.platform = platform
        self.updatedAt = updatedAt
        self.source = source
        self.sealing = sealing
    }

    /// The VoIP topic (`apns-topic`).
    public var topic: String { bundleID + ".voip" }
    /// An FCM token (`platform: "android"`): pushed through FCM HTTP v1, not APNs.
    public var isAndroid: Bool { platform == "android" }
    /// The token as logs may show it.
    public var redactedToken: String { TokenText.redact(token) }
}

/// Device-token text rules: lowercase hex, even length, 16–512 digits; shown only redacted.
public enum TokenText {
    /// The token normalised to lowercase, or nil when it is not an acceptable hex token.
    public static func normalized(_ text: String) -> String? {
        let lower = text.lowercased()
        guard lower.count >= 16, lower.count <= 512, lower.count % 2 == 0,
            lower.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
        else { return nil }
        return lower
    }

    /// `a1b2…(64)`: the first four hex digits and the length — enough to tell tokens apart in a
    /// log, useless to push with (TOOLS.md: push tokens are redacted in every output).
    public static func redact(_ token: String) -> String { String(token.prefix(4)) + "…(\(token.count))" }
}
