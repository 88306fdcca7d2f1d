import PushKitEmu
import SIPCore

/// Where a live scenario's peers listen (all on loopback): Kamailio (the caller uses UDP, the
/// phone WSS), the gateway's HTTP API and the APNs emulator's device port, and the gateway
/// settings the verdict is checked against.
public struct LiveEnvironment: Sendable {
    public var host = "127.0.0.1"
    /// Kamailio UDP/TCP port (the caller's line).
    public var sipPort: UInt16 = 5060
    /// Kamailio WSS port (the phone's line).
    public var wssPort: UInt16 = 8089
    /// CA of Kamailio's certificate (nil = verification off: the throw-away test CA is unknown).
    public var caFile: String?
    /// Gateway HTTP API port.
    public var httpPort: UInt16 = 8088
    /// APNs emulator device port.
    public var apnsDevicePort: UInt16 = 2197
    /// The gateway's ack window (ms), for the failover bound and the scenario timing.
    public var ackWindowMs: Int64 = 2_000
    /// The gateway's qualify timeout (ms).
    public var qualifyTimeoutMs: Int64 = 500
    /// The configured APNs delivery delay (ms).
    public var apnsDelayMs: Int64 = 0
    /// The phone's user (1001–1099 in the project's Kamailio; password `astra<user>`).
    public var phoneUser = "1050"
    /// The caller's user.
    public var callerUser = "1001"
    /// `--sip-trace` for both stacks.
    public var sipTrace = false
    /// RFC 8599 mode: the phone's REGISTER carries pn-provider/pn-prid/pn-param.
    public var rfc8599 = false
    /// The phone's platform: iOS (APNs, PushKit rules) or Android (an FCM token; the gateway
    /// pushes through FCM HTTP v1; docs/wake-gateway.md "Android").
    public var platform: DevicePlatform = .ios
    /// Mints the phone's bearer token for the gateway's token endpoints (the dev key of a gateway
    /// this tool started; nil = send none).
    public var gatewayAuth: GatewayDevAuth?
    /// The device's share of delivery: `.ideal` adds nothing to the gateway's emulator (0 ms,
    /// no loss, no launch delay); `.field` draws the field model's APNs delay, loss and iOS cold
    /// launch (PushKitEmu `withFieldDelivery()`) per push and launch.
    public var delivery: DeliveryModel = .ideal
    /// `--apns-delay`, `--cold-launch`, `--loss-percent` on top of the model.
    public var deliveryOverrides = DeliveryOverrides()
    /// Seed of the delivery draws.
    public var deliverySeed: UInt64 = 1
    /// Sealed pushes (`--sealed`): the phone registers with a device key, a call grant and a call
    /// key, and judges every push it gets (the gateway runs `--sealed required`).
    public var sealed = false
    /// What happens to the phone's copy of each sealed push (`--seal-fault`).
    public var sealFault: SealFault = .none
    /// The gateway id the phone's grant names (the gateway's `--gateway-id`).
    public var gatewayID = "astra-wakegw"

    /// The phone's delivery settings: live's ideal is no added delay at all (the real work of a
    /// fresh process is what is measured, D14), field is PushKitEmu's field model.
    public var deliverySettings: EmulatorSettings {
        var s = EmulatorSettings()
        s.apnsDelay = .fixed(0)
        s.launchFromKilled = .fixed(0)
        s.launchFromSuspended = .fixed(0)
        return delivery.apply(to: s, overrides: deliveryOverrides)
    }

    public init() {}

    /// The phone's line: WSS to Kamailio.
    public var phoneLine: Line {
        Line(
            user: phoneUser, password: "astra\(phoneUser)", domain: host,
            server: LineServer(host: host, port: Int(wssPort)),
            transport: .wss, expires: 300, caFile: caFile, tlsVerify: caFile != nil)
    }

    /// The caller's line: UDP to Kamailio.
    public var callerLine: Line {
        Line(
            user: callerUser, password: "astra\(callerUser)", domain: host,
            server: LineServer(host: host, port: Int(sipPort)), transport: .udp, expires: 300)
    }
}
