import AstraJSON
import CLinux
import Synchronization
import WakeGateway

/// Freed pages go back to the system on a timer: connections and calls are served on pool
/// threads, each with its own malloc arena, and free() gives back only the top of a heap, so
/// without this RSS creeps up in steps while the heap in use stays flat (docs/adr/0044).
/// A trim holds each malloc arena's lock while it walks it, so its cost is printed, not assumed.
final class HeapTrims: Sendable {
    static let shared = HeapTrims()

    /// The trims since the last `stats` event: how many, and the longest in microseconds.
    private let since = Mutex<(count: Int64, maxMicros: Int64)>((0, 0))

    /// One `malloc_trim(0)`, timed.
    func trim() {
        let started = ContinuousClock.now
        _ = astra_heap_trim()
        let took = ContinuousClock.now - started
        let micros = took.components.seconds * 1_000_000 + took.components.attoseconds / 1_000_000_000_000
        record(micros: micros)
    }

    func record(micros: Int64) {
        since.withLock { $0 = ($0.count + 1, max($0.maxMicros, micros)) }
    }

    /// A `stats` event with the heap trims since the previous one (`heap_trims`, `heap_trim_max_us`),
    /// which starts the next count.
    func stats(_ event: WakeEvent) -> JSONObject {
        var fields = event.fields
        let trims = since.withLock { value in
            defer { value = (0, 0) }
            return value
        }
        fields.append("heap_trims", .int(trims.count))
        fields.append("heap_trim_max_us", .int(trims.maxMicros))
        return fields
    }
}
