#if canImport(Glibc)
import Glibc
#endif

/// 64-bit NTP timestamps (RFC 3550 §4: seconds since 1900 in the high 32 bits).
package enum NTPTime {
    /// Seconds from 1900-01-01 to the Unix epoch.
    public static let unixOffset: UInt64 = 2_208_988_800

    /// The wall-clock time now as NTP.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return from(seconds: UInt64(ts.tv_sec) + unixOffset, nanoseconds: UInt64(ts.tv_nsec))
    }

    public static func from(seconds: UInt64, nanoseconds: UInt64) -> UInt64 {
        seconds << 32 | (nanoseconds << 32) / 1_000_000_000
    }

    /// `base` advanced by `offset`.
    public static func advance(_ base: UInt64, by offset: Duration) -> UInt64 {
        let c = offset.components
        let fraction = UInt64(c.attoseconds / 1_000_000_000) << 32 / 1_000_000_000
        return base &+ UInt64(c.seconds) << 32 &+ fraction
    }

    /// A duration in 1/65536 s (for DLSR).
    public static func compact(_ d: Duration) -> UInt32 {
        let c = d.components
        let units = c.seconds * 65536 + c.attoseconds / 1_000_000_000 * 65536 / 1_000_000_000
        return UInt32(clamping: units)
    }
}
