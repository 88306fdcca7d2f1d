// bench-call: call set-up and CPU per call through a real Kamailio on loopback
// (scripts/kamailio.sh, own ports and run dir), with the release astra-call next to this binary.
// Prints ONE JSON object on stdout:
//   set-up (median/p90 of N calls, WSS caller → UDP callee answering at once): dial → answered
//   event, and INVITE sent → first RTP packet received (both from the caller's `ended` stats);
//   WebRTC set-up (median/p90 of M calls, `--media webrtc` both ends, same path): answer → ICE
//   pair selected, → DTLS connected, → first decrypted audio, on each side (its own answer:
//   200 received by the caller, 200 sent by the callee), from the events' since_answer_ms;
//   CPU per active call: K concurrent calls (2K astra-call processes, G.711 tone both ways),
//   user+system CPU of every process over a steady 4 s window, per call (both legs) and per leg.
// Diagnostics go to stderr.
import Foundation

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
let base = Int.random(in: 21_000...29_000) / 4 * 4
let runDir = NSTemporaryDirectory() + "astra-kamailio-bench-call-\(base)"
let env: [String: String] = [
    "KAMAILIO_SIP_PORT": "\(base)", "KAMAILIO_TLS_PORT": "\(base + 1)", "KAMAILIO_WS_PORT": "\(base + 2)",
    "KAMAILIO_WSS_PORT": "\(base + 3)", "KAMAILIO_RUN_DIR": runDir,
]
let setupCalls = Int(ProcessInfo.processInfo.environment["BENCH_CALL_SETUPS"] ?? "") ?? 10
let webRTCCalls = Int(ProcessInfo.processInfo.environment["BENCH_CALL_WEBRTC_SETUPS"] ?? "") ?? 12
let concurrentCalls = Int(ProcessInfo.processInfo.environment["BENCH_CALL_CONCURRENT"] ?? "") ?? 10

func log(_ text: String) { FileHandle.standardError.write((text + "\n").data(using: .utf8)!) }

func kamailio(_ command: String) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [root + "/scripts/kamailio.sh", command]
    process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try? process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

final class Tool {
    let process = Process()
    let output: URL
    init(_ arguments: [String]) throws {
        output = URL(fileURLWithPath: NSTemporaryDirectory() + "bench-call-\(UUID().uuidString).jsonl")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: bin + "/astra-call")
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
    }
    var lines: [String] {
        ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
    func has(_ event: String) -> Bool { lines.contains { $0.contains("\"event\":\"\(event)\"") } }
    func waitFor(_ event: String, seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end { if has(event) { return true }; usleep(20_000) }
        return has(event)
    }
    /// utime + stime of the process, seconds (/proc/PID/stat fields 14 and 15).
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
    }
    func number(_ key: String, in event: String) -> Double? {
        guard let line = lines.first(where: { $0.contains("\"event\":\"\(event)\"") }),
            let range = line.range(of: "\"\(key)\":")
        else { return nil }
        return Double(line[range.upperBound...].prefix { $0 != "," && $0 != "}" })
    }
    deinit { try? FileManager.default.removeItem(at: output) }
}

func line(_ user: Int, _ transport: String) -> [String] {
    let port = transport == "wss" ? base + 3 : base
    return [
        "--password", "astra\(user)", "--server", "127.0.0.1:\(port)", "--transport", transport,
        "--ca-file", runDir + "/ca.crt", "--user", "\(user)", "--domain", "127.0.0.1", "--rtp-timeout", "0",
    ]
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func round2(_ x: Double) -> Double { (x * 100).rounded() / 100 }

guard FileManager.default.isExecutableFile(atPath: bin + "/astra-call") else {
    log("bench-call: \(bin)/astra-call is missing: swift build -c release --product astra-call")
    exit(1)
}
guard kamailio("start") == 0 else {
    log("bench-call: could not start Kamailio")
    exit(1)
}
var failures = 0
var setups: [Double] = []
var firstRTPs: [Double] = []
for i in 0..<setupCalls {
    do {
        let callee = try Tool(["answer"] + line(1050, "udp") + ["--tone", "1000"])
        guard callee.waitFor("waiting", seconds: 10) else { failures += 1; callee.process.terminate(); continue }
        let caller = try Tool(
            ["dial"] + line(1051, "wss") + ["--tone", "440", "--duration", "0.5", "sip:1050@127.0.0.1"])
        caller.process.waitUntilExit()
        callee.process.waitUntilExit()
        if let s = caller.number("setup_ms", in: "ended"), let r = caller.number("first_rtp_ms", in: "ended") {
            setups.append(s)
            firstRTPs.append(r)
        } else {
            failures += 1
        }
    } catch { failures += 1 }
    log("bench-call: set-up \(i + 1)/\(setupCalls): \(setups.last.map { "\($0) ms" } ?? "failed")")
}

// WebRTC set-up: ICE + DTLS-SRTP after the answer, each side on its own clock.
var webRTCFailures = 0
var webRTC: [String: [Double]] = [:]
for i in 0..<webRTCCalls {
    do {
        let callee = try Tool(["answer"] + line(1052, "udp") + ["--tone", "1000", "--media", "webrtc"])
        guard callee.waitFor("waiting", seconds: 10) else {
            webRTCFailures += 1
            callee.process.terminate()
            continue
        }
        let caller = try Tool(
            ["dial"] + line(1053, "wss")
                + ["--tone", "440", "--duration", "0.5", "--media", "webrtc", "sip:1052@127.0.0.1"])
        caller.process.waitUntilExit()
        callee.process.waitUntilExit()
        var complete = true
        for (side, tool) in [("caller", caller), ("callee", callee)] {
            for (key, event) in [("ice", "ice_connected"), ("dtls", "dtls_connected"), ("audio", "first_rtp")] {
                if let v = tool.number("since_answer_ms", in: event) {
                    webRTC["\(side)_\(key)", default: []].append(v)
                } else {
                    complete = false
                }
            }
        }
        if let v = caller.number("first_rtp_ms", in: "ended") { webRTC["dial_audio", default: []].append(v) }
        if !complete { webRTCFailures += 1 }
        log(
            "bench-call: webrtc \(i + 1)/\(webRTCCalls): callee answer → audio \(webRTC["callee_audio"]?.last ?? -1) ms"
        )
    } catch { webRTCFailures += 1 }
}
func summary(_ v: [Double]) -> String {
    return
        "{\"median\": \(round2(percentile(v, 0.5))), \"p90\": \(round2(percentile(v, 0.9))), \"max\": \(round2(v.max() ?? 0))}"
}
let worstMedianAudio = max(percentile(webRTC["caller_audio"] ?? [], 0.5), percentile(webRTC["callee_audio"] ?? [], 0.5))
let webRTCJSON = """
    {"calls": \((webRTC["callee_audio"] ?? []).count), "failures": \(webRTCFailures), \
    "answer_to_ice_selected_ms": {"caller": \(summary(webRTC["caller_ice"] ?? [])), "callee": \(summary(webRTC["callee_ice"] ?? []))}, \
    "answer_to_dtls_connected_ms": {"caller": \(summary(webRTC["caller_dtls"] ?? [])), "callee": \(summary(webRTC["callee_dtls"] ?? []))}, \
    "answer_to_first_decrypted_audio_ms": {"caller": \(summary(webRTC["caller_audio"] ?? [])), "callee": \(summary(webRTC["callee_audio"] ?? []))}, \
    "invite_to_first_decrypted_audio_ms": \(summary(webRTC["dial_audio"] ?? [])), "target_ms": 150, \
    "meets_target": \(worstMedianAudio > 0 && worstMedianAudio <= 150)}
    """
failures += webRTCFailures

// CPU: K concurrent calls, 1060+2k → 1061+2k (UDP callee, WSS caller).
var legs: [Tool] = []
for k in 0..<concurrentCalls {
    if let callee = try? Tool(["answer"] + line(1060 + 2 * k, "udp") + ["--tone", "1000"]) { legs.append(callee) }
}
for callee in legs where !callee.waitFor("waiting", seconds: 15) { failures += 1 }
var callers: [Tool] = []
for k in 0..<concurrentCalls {
    if let caller = try? Tool(
        ["dial"] + line(1061 + 2 * k, "wss") + ["--tone", "440", "--duration", "9", "sip:\(1060 + 2 * k)@127.0.0.1"])
    {
        callers.append(caller)
    }
}
legs += callers
for caller in callers where !caller.waitFor("answered", seconds: 15) { failures += 1 }
Thread.sleep(forTimeInterval: 2)
let before = legs.map(\.cpuSeconds)
let window = 4.0
Thread.sleep(forTimeInterval: window)
let after = legs.map(\.cpuSeconds)
let cpu = zip(after, before).map { $0 - $1 }.reduce(0, +)
for tool in legs { tool.process.waitUntilExit() }
let answeredCalls = callers.filter { $0.has("answered") }.count
_ = kamailio("stop")

let perCall = answeredCalls > 0 ? cpu / window / Double(answeredCalls) * 100 : 0
let json = """
    {"bench": "call", "peer": "kamailio-5.6 loopback (WSS caller → UDP callee, record-routed)", \
    "setup_calls": \(setups.count), "dial_to_answered_ms": {"median": \(round2(percentile(setups, 0.5))), \
    "p90": \(round2(percentile(setups, 0.9))), "min": \(round2(setups.min() ?? 0))}, \
    "invite_to_first_rtp_ms": {"median": \(round2(percentile(firstRTPs, 0.5))), \
    "p90": \(round2(percentile(firstRTPs, 0.9))), "min": \(round2(firstRTPs.min() ?? 0))}, \
    "webrtc": \(webRTCJSON), \
    "concurrent_calls": \(answeredCalls), "cpu_window_s": \(window), \
    "cpu_percent_per_call": \(round2(perCall)), "cpu_percent_per_leg": \(round2(perCall / 2)), \
    "cpu_note": "user+system of both astra-call processes per call (G.711 20 ms both ways, RTCP, SIP keep-alive), one core = 100", \
    "failures": \(failures)}
    """
print(json)
exit(failures == 0 ? 0 : 1)
