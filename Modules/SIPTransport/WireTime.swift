import Glibc

/// A wall-clock instant (CLOCK_REALTIME) as the SIP trace prints it. Transports stamp a
/// message once, where it is sent or received, and the same stamp goes to the trace and to
/// any ``SIPTrace`` observer, so a duration computed from two stamps (astra-register's
/// `timings_ms`) agrees with the trace's own timestamps to the microsecond.
public struct WireTime: Sendable, Hashable, Comparable {
    public let seconds: Int
    public let nanoseconds: Int

    public init(seconds: Int, nanoseconds: Int) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public static func now() -> WireTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return WireTime(seconds: ts.tv_sec, nanoseconds: ts.tv_nsec)
    }

    /// Milliseconds from `earlier` to this instant, at the trace's resolution (1 µs).
    public func milliseconds(since earlier: WireTime) -> Double {
        let micros = (seconds - earlier.seconds) * 1_000_000 + (nanoseconds / 1000 - earlier.nanoseconds / 1000)
        return Double(micros) / 1000
    }

    /// Seconds from `start` to this instant, to the nanosecond (captures and ladders).
    public func seconds(since start: WireTime) -> Double {
        Double(seconds - start.seconds) + Double(nanoseconds - start.nanoseconds) / 1e9
    }

    public static func < (a: WireTime, b: WireTime) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }
}
