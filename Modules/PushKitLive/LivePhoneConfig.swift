import PushKitEmu
import SIPCore
import SIPDialog

/// What one live phone is: its SIP line, its push identity, where the gateway and the APNs
/// emulator listen, and the rule settings it is judged with.
public struct LivePhoneConfig: Sendable {
    /// The phone's SIP account (WSS to Kamailio in the scenarios).
    public var line: Line
    /// The gateway's HTTP API (ack, token endpoints).
    public var gateway: GatewayClient
    /// The APNs emulator's device port (gateway flag `--apns-device-port`); host is loopback.
    public var apnsDevicePort: UInt16
    /// The APNs emulator's host.
    public var apnsHost = "127.0.0.1"
    /// The device's PushKit token (printed only redacted).
    public var token: PushToken
    /// App bundle id; the VoIP topic is `<bundle>.voip`.
    public var bundleID = "com.example.astra"
    /// Token environment (`sandbox` or `production`; iOS only).
    public var environment: APNsEnvironment = .sandbox
    /// iOS (PushKit token, APNs) or Android (FCM registration token, FCM HTTP v1 data messages).
    public var platform: DevicePlatform = .ios
    /// The FCM project (sender) an Android token belongs to; the gateway's emulator's own.
    public var fcmProject = "astra-emulator"
    /// RFC 8599 mode: REGISTER carries pn-provider/pn-prid/pn-param; no token endpoint.
    public var rfc8599 = false
    /// Apple team id for `pn-param` (`<TeamID>.<BundleID>.voip`).
    public var teamID = "ASTRATEAM1"
    /// Rule settings (placeholder and answer timeouts, staleness, strikes).
    public var settings = EmulatorSettings()
    /// Emulated cold-launch delay of a killed app before iOS starts its process (drawn per
    /// launch). Live default 0: the real process start, SIP stack, TLS and REGISTER are what is
    /// measured; `--delivery field` draws the field model's iOS launch on top.
    public var launchFromKilled: DelayDistribution = .fixed(0)
    /// Emulated resume delay of a suspended app (drawn per resume).
    public var launchFromSuspended: DelayDistribution = .fixed(0)
    /// Extra APNs delay the device adds to every push from the gateway's emulator (drawn per
    /// push; the gateway's own `--apns-delay-ms` comes before it). Default 0.
    public var apnsDelay: DelayDistribution = .fixed(0)
    /// Percent of pushes the device never sees (APNs loss), drawn per push. Default 0.
    public var apnsLossPercent: Double = 0
    /// Seed of the delivery draws (delays, not key material).
    public var deliverySeed: UInt64 = 1
    /// Emulated network start of a woken app: its REGISTER leaves this long after the policy's
    /// `register` op (ms; 0 = at once).
    public var registerDelayMs: Int64 = 0
    /// Tone the phone sends once answered (Hz).
    public var toneHz: Double = 1_000
    /// `--sip-trace` for the phone's stack.
    public var sipTrace = false
    /// Sealed pushes (`--sealed`): the device key, grant and call key the phone registers with,
    /// and the keychain it judges pushes by. Nil: clear pushes.
    public var sealing: LiveSealing?

    public init(line: Line, gateway: GatewayClient, apnsDevicePort: UInt16, token: PushToken) {
        self.line = line
        self.gateway = gateway
        self.apnsDevicePort = apnsDevicePort
        self.token = token
    }

    /// `apns-topic` of VoIP pushes.
    public var topic: String { bundleID + ".voip" }
    /// The token as the push service knows it, for the wire only (never printed): the PushKit
    /// token's hex on iOS; on Android an FCM registration token derived from the same bytes (FCM's
    /// `<instance id>:APA91b<…>` shape, so runs stay reproducible).
    public var wireToken: String {
        let hex = token.rawHexForAPNsRequestOnly
        return platform == .android ? String(hex.prefix(11)) + ":APA91b" + hex : hex
    }
    /// The token endpoint's `asterisk_endpoint`: the line's user.
    public var endpointName: String { line.user }

    /// RFC 8599 Contact parameters for this device: APNs (§9: the token's hex,
    /// `<TeamID>.<bundle>.voip`) on iOS, FCM (§10: the registration token, the project id) on Android.
    public var pushParameters: PushParameters {
        platform == .android
            ? PushParameters(provider: "fcm", prid: wireToken, param: fcmProject)
            : PushParameters(provider: "apns", prid: token.rawHexForAPNsRequestOnly, param: "\(teamID).\(topic)")
    }
}
