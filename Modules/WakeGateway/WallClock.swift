import Glibc

/// Wall-clock time for `updated_at` fields (not for timers: those run on an injected `Clock`).
public enum WallClock {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// RFC 3339 UTC with milliseconds, e.g. `2026-11-30T12:34:56.789Z` (no Foundation formatters).
    public static func iso8601(ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1_000 : (ms - 999) / 1_000
        let millis = Int(ms - seconds * 1_000)
        var days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        // Howard Hinnant's civil_from_days.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = Int(yoe + era * 400 + (month <= 2 ? 1 : 0))
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }
}
