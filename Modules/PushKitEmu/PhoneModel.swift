/// What iOS does when a VoIP push reaches the device.
public enum PushArrival: Sendable, Hashable {
    /// R2 blackout: iOS drops it.
    case suppressed
    /// The handler runs after `afterMs` (0 when the app runs; launch/resume time otherwise);
    /// `launchedFrom` is the state the app was woken from, `nil` when it was running.
    case runHandler(afterMs: Int64, launchedFrom: AppState?)
}

/// The device and the app's process as iOS manages them: app state, network, lock, the PushKit
/// registry (token, environment, validity) and the R2 strike count.
///
/// An action-returning model: the simulation asks it what iOS does and applies the answer.
public struct PhoneModel: Sendable {
    /// The app process state.
    public var app: AppState
    /// Device network.
    public var online: Bool
    /// Device lock.
    public var locked: Bool
    /// The app's APNs environment.
    public var environment: APNsEnvironment
    /// The current PushKit token.
    public internal(set) var token: PushToken
    /// Whether the token is still valid at APNs (false after invalidation).
    public internal(set) var tokenValid = true
    /// R1 failures so far (R2).
    public internal(set) var strikes = 0
    /// R2: iOS no longer delivers VoIP pushes to the app (field reports: until reinstall).
    public internal(set) var blackout = false
    /// Whether the app's SIP flow is up (answers OPTIONS, receives INVITE/CANCEL).
    public var sipConnected = false
    /// A token change happened while the app was not running: delivered at next launch.
    var tokenChangePending = false
    /// The app is being launched until this time; handlers for later pushes wait for it.
    var launchingUntil: Int64 = -1

    public init(setup: PhoneSetup, token: PushToken) {
        app = setup.app
        online = setup.online
        locked = setup.locked
        environment = setup.environment
        self.token = token
        sipConnected = setup.app == .foreground && setup.registered && setup.online
    }

    /// Whether the process runs (can execute callbacks and keep a SIP flow).
    public var appRunning: Bool { app == .foreground || app == .background }

    /// Whether a SIP message from the server reaches the app now.
    public var sipReachable: Bool { online && appRunning && sipConnected }

    /// A VoIP push reached the device at `now`; launching a killed app takes `coldLaunchMs`,
    /// resuming a suspended one `resumeMs` (drawn by the caller from the settings' distributions).
    public mutating func pushArrived(now: Int64, coldLaunchMs: Int64, resumeMs: Int64) -> PushArrival {
        if blackout { return .suppressed }
        if now < launchingUntil { return .runHandler(afterMs: launchingUntil - now, launchedFrom: nil) }
        switch app {
        case .foreground, .background:
            return .runHandler(afterMs: 0, launchedFrom: nil)
        case .suspended:
            launchingUntil = now + resumeMs
            return .runHandler(afterMs: resumeMs, launchedFrom: .suspended)
        case .killed:
            launchingUntil = now + coldLaunchMs
            return .runHandler(afterMs: coldLaunchMs, launchedFrom: .killed)
        }
    }

    /// iOS killed the app for an R1 failure; returns the new strike count.
    public mutating func killedForR1() -> Int {
        app = .killed
        sipConnected = false
        launchingUntil = -1
        strikes += 1
        return strikes
    }

    /// R2: start the blackout.
    public mutating func startBlackout() { blackout = true }

    /// PushKit rotates the token.
    public mutating func rotateToken(_ newToken: PushToken) {
        token = newToken
        tokenValid = true
        tokenChangePending = !appRunning
    }

    /// PushKit invalidates the token.
    public mutating func invalidateToken() {
        tokenValid = false
        tokenChangePending = !appRunning
    }
}
