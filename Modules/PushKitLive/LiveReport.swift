import Media
import PushKitEmu

/// The result of one live scenario: the wall-clock timeline, the violations (same checker as
/// virtual mode), outcomes, and the measured latencies.
public struct LiveReport: Sendable {
    public var scenario: String
    public var policy: String
    public var timeline: [(t: Int64, event: LiveEvent)]
    public var violations: [Violation]
    public var outcomes: [CallOutcome]
    public var expected: [CallOutcome]
    /// Caller INVITE → caller's 180, per call that rang (ms).
    public var pushToRingMs: [Int64]
    /// Caller INVITE → the failover answer, per call failed over (ms).
    public var failoverMs: [Int64]
    /// Caller's hang-up → the phone's CallKit call for it ended, per call the caller left (ms).
    public var callerLeftToEndMs: [Int64] = []
    /// Tone seconds each side heard from the other in the first connected call (phone: 440 Hz
    /// from the caller; caller: 1000 Hz from the phone), when a call connected.
    public var phoneHeardSeconds: Double?
    public var callerHeardSeconds: Double?
    /// An infrastructure failure that stopped the run (exit 3), if any.
    public var infrastructureError: String?
    /// The client process broke the client protocol (a CLIENT violation; the run stopped).
    public var clientFailure: ClientFault?
    /// Per app process iOS started (`app_process_started`): spawn → its first CallKit report, and
    /// spawn → its REGISTER answered (`phone_registered`), ms — the measured cold start.
    public var spawnToReportMs: [Int64] = []
    public var spawnToRegisterMs: [Int64] = []
    /// Per push the phone received: the extra APNs delay the device drew (`apns_delivered`
    /// `age_ms`), and per launch the iOS launch delay drawn (`launch_delay`), ms.
    public var apnsDelayMs: [Int64] = []
    public var launchDelayMs: [Int64] = []

    public var expectationMet: Bool { outcomes == expected }
    public var passed: Bool { infrastructureError == nil && violations.isEmpty && expectationMet }
    public var rulesBroken: [RuleID] { Array(Set(violations.map(\.rule))).sorted() }
    /// Both sides heard the other's tone for most of the talk time.
    public var twoWayAudio: Bool? {
        guard let phone = phoneHeardSeconds, let caller = callerHeardSeconds else { return nil }
        return phone >= 0.8 && caller >= 0.8
    }

    /// The verdict line: virtual mode's fields plus `mode`, latencies and the audio check.
    public var verdictLine: String {
        var line = JSONLine(event: "verdict", t: timeline.last?.t ?? 0)
        line.add("scenario", scenario)
        line.add("policy", policy)
        line.add("mode", "live")
        line.add("ok", passed)
        line.add("violations", violations.count)
        line.add("rules", rulesBroken.map(\.rawValue))
        line.add("kinds", Array(Set(violations.map(\.kind.rawValue))).sorted())
        line.add("outcomes", outcomes.map(\.rawValue))
        line.add("expected", expected.map(\.rawValue))
        line.add("events", timeline.count)
        line.add("push_to_ring_ms", pushToRingMs.map(String.init))
        line.add("failover_ms", failoverMs.map(String.init))
        line.add("caller_left_to_end_ms", callerLeftToEndMs.map(String.init))
        line.add("apns_delay_ms", apnsDelayMs.map(String.init))
        line.add("launch_delay_ms", launchDelayMs.map(String.init))
        line.add("spawn_to_report_ms", spawnToReportMs.map(String.init))
        line.add("spawn_to_register_ms", spawnToRegisterMs.map(String.init))
        if let twoWayAudio { line.add("two_way_audio", twoWayAudio) }
        if let infrastructureError { line.add("error", infrastructureError) }
        if let clientFailure { line.add("client_error", clientFailure.detail) }
        return line.string
    }

    /// One stderr line when the verdict is not ok.
    public var summary: String {
        var parts: [String] = []
        if let infrastructureError { parts.append(infrastructureError) }
        if let clientFailure { parts.append("client: " + clientFailure.detail) }
        if !violations.isEmpty { parts.append("broke " + rulesBroken.map(\.rawValue).joined(separator: ", ")) }
        if rulesBroken.contains(.wake) { parts.append("failover after \(failoverMs.map(String.init).joined(separator: ", ")) ms") }
        if !expectationMet {
            parts.append("outcomes \(outcomes.map(\.rawValue)) != expected \(expected.map(\.rawValue))")
        }
        return "\(scenario) (live) with \(policy): " + parts.joined(separator: "; ")
    }

    /// Fills the cold-start and delivery-draw figures from the timeline.
    mutating func measureColdStart() {
        var spawns: [Int64] = []
        var reports: [Int64] = []
        var registered: [Int64] = []
        for (t, event) in timeline {
            switch event {
            case .live("app_process_started", _): spawns.append(t)
            case .live("phone_registered", _): registered.append(t)
            case .live("launch_delay", let fields):
                for case ("ms", .number(let ms)) in fields { launchDelayMs.append(ms) }
            case .emu(.callkitReport): reports.append(t)
            case .emu(.apnsDelivered(_, let age)): apnsDelayMs.append(age)
            default: break
            }
        }
        for (i, spawn) in spawns.enumerated() {
            let next = i + 1 < spawns.count ? spawns[i + 1] : Int64.max
            if let r = reports.first(where: { $0 >= spawn && $0 < next }) { spawnToReportMs.append(r - spawn) }
            if let r = registered.first(where: { $0 >= spawn && $0 < next }) { spawnToRegisterMs.append(r - spawn) }
        }
    }

    /// Seconds of `frequency` in 8 kHz audio (``Goertzel/toneSeconds(_:frequency:sampleRate:)``).
    static func toneSeconds(_ samples: [Int16], frequency: Double) -> Double {
        Goertzel.toneSeconds(samples, frequency: frequency)
    }
}
