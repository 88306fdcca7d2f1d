import Foundation
import PushKitEmu
import PushKitLive
import Synchronization
import Testing

extension KamailioPeer.PushWakeLiveTests {
    /// The client processes (`astra-pushsim client …`) that are children of this test process now.
    static func clientChildren(marker: String) -> Set<Int32> {
        let me = getpid()
        var found: Set<Int32> = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // stat: pid (comm) state ppid …; comm may hold spaces, so split after the last ')'.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[1]) == me,
                let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let cmdline = String(decoding: raw.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            if cmdline.contains(marker) { found.insert(pid) }
        }
        return found
    }

    /// Issue 17 "Must show": `live killed` starts the phone's app as a new OS process when the push
    /// arrives, and a killed app has no process at all. A watcher polls /proc for this process's
    /// client children against the live timeline: none exists when the push reaches the device
    /// (nor before), the pid of `app_process_started` appears only after it, answers the
    /// callbacks (report, REGISTER), and is gone once the run ends.
    @Test func killedAppIsANewProcessStartedByThePush() async throws {
        let marker = "client --policy correct"
        let session = try ClientSession(
            command: "'\(ToolProcess.binDirectory)/astra-pushsim' \(marker)", lifetime: .perLaunch)
        defer { session.close() }
        #expect(Self.clientChildren(marker: marker).isEmpty, "the start-up probe is gone before the run")
        let timeline = LiveTimeline()
        let snapshots = Mutex<[(t: Int64, pids: Set<Int32>)]>([])
        let watching = Task {
            while !Task.isCancelled {
                let t = timeline.now
                let pids = Self.clientChildren(marker: marker)
                snapshots.withLock { $0.append((t, pids)) }
                try? await Task.sleep(for: .milliseconds(3))  // sampling interval of the watcher
            }
        }
        let report = try await Self.run("killed", expectPass: true) { scenario, env in
            var slowLaunch = scenario
            slowLaunch.launchFromKilledMs = 300  // iOS's launch: the push is in well before the spawn
            return await LiveRunner.run(slowLaunch, session: session, environment: env, timeline: timeline)
        }
        watching.cancel()
        _ = await watching.value
        #expect(report.passed, "\(report.summary)")
        let events = report.timeline
        let pushAt = try #require(events.first { $0.event.name == "apns_delivered" }?.t)
        let started = try #require(
            events.first { $0.event.name == "app_process_started" }.flatMap { entry -> (Int64, Int32)? in
                guard case .live(_, let fields) = entry.event else { return nil }
                for case ("pid", .number(let pid)) in fields { return (entry.t, Int32(pid)) }
                return nil
            })
        let (spawnAt, pid) = started
        #expect(events.filter { $0.event.name == "app_process_started" }.count == 1)
        #expect(spawnAt >= pushAt + 250, "spawned after the push and iOS's launch delay")
        let seen = snapshots.withLock { $0 }
        let beforePush = seen.filter { $0.t <= pushAt }
        #expect(beforePush.count > 10, "the watcher saw the time before the push")
        #expect(beforePush.allSatisfy { $0.pids.isEmpty }, "a killed app has no process")
        #expect(seen.filter { $0.t < spawnAt - 20 }.allSatisfy { !$0.pids.contains(pid) })
        #expect(seen.contains { $0.pids.contains(pid) }, "the app's process \(pid) really ran")
        #expect(kill(pid, 0) != 0, "and is gone after the run")
        #expect(report.spawnToReportMs.count == 1 && report.spawnToRegisterMs.count == 1)
        #expect((report.spawnToReportMs.first ?? 9_999) < 2_000)
        let names = events.map(\.event.name)
        let order = [
            "apns_delivered", "app_launch", "app_process_started", "callkit_report", "phone_registered",
            "caller_ringing", "call_connected", "app_process_ended",
        ]
        let positions = order.compactMap { names.firstIndex(of: $0) }
        #expect(positions.count == order.count && positions == positions.sorted(), "\(names)")
    }

    /// A live app process that dies right after its launch (it answers `launched`, then exits) is one CLIENT
    /// violation, the run stops at once, and nothing else is blamed on the app.
    @Test func appProcessThatDiesAfterItsLaunchIsACLIENTViolation() async throws {
        let hello = #"{"hello":"astra-pushsim-client","version":1,"name":"dies"}"#
        let command = "read h; echo '\(hello)'; read r; echo '{\"ops\":[]}'; read l; echo '{\"ops\":[]}'; exit 3"
        let session = try ClientSession(command: command, timeoutMs: 2_000, lifetime: .perLaunch)
        defer { session.close() }
        let start = ContinuousClock.now
        let report = try await Self.run("killed", expectPass: false) { scenario, env in
            await LiveRunner.run(scenario, session: session, environment: env)
        }
        #expect(!report.passed)
        #expect(report.violations.map(\.kind) == [.clientExited])
        #expect(report.clientFailure?.detail.contains("exited with status 3") == true)
        #expect(report.summary.contains("broke CLIENT"))
        #expect(start.duration(to: .now) < .seconds(30))
    }
}
