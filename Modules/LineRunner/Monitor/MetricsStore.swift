import Metrics
import Synchronization

/// The monitor's one ``MetricSet`` behind a lock: every line's shell updates it in place as
/// events happen, and each scrape renders it. Updates are a few dictionary writes, rendering
/// is a string build; neither waits for I/O, so a lock is cheaper than an actor hop.
public final class MetricsStore: Sendable {
    private let set: Mutex<MetricSet>

    public init(_ set: MetricSet) { self.set = Mutex(set) }

    /// Runs `body` on the set in place.
    public func update<R>(_ body: (inout MetricSet) -> R) -> R {
        set.withLock { body(&$0) }
    }

    /// The exposition in `format`.
    public func render(_ format: ExpositionFormat) -> String {
        set.withLock { $0.render(format) }
    }

    /// The exposition in `format` as the bytes of a response body.
    public func renderBytes(_ format: ExpositionFormat) -> [UInt8] {
        set.withLock { $0.renderBytes(format) }
    }
}
