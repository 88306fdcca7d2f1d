/// `--state memory`: the state lives as long as the process (tests and dev mode; the gateway says
/// so on stderr at start). The same contract as the durable stores, so the gateway code is one.
public actor MemoryStateStore: StateStore {
    public nonisolated var location: String { "memory" }
    private var registrations: [String: PushRegistration] = [:]
    private var buckets: [String: StateRateBucket] = [:]
    private var backoffs: [String: StateBackoff] = [:]
    private var closed = false

    public init() {}

    public func load() async throws(StateStoreError) -> StateSnapshot {
        guard !closed else { throw StateStoreError(.failed, "state store closed") }
        var snapshot = StateSnapshot()
        snapshot.registrations = registrations.values.sorted { ($0.endpoint, $0.source.rawValue) < ($1.endpoint, $1.source.rawValue) }
        snapshot.rateBuckets = buckets.values.sorted { $0.endpoint < $1.endpoint }
        snapshot.backoffs = backoffs.values.sorted { $0.token < $1.token }
        return snapshot
    }

    public func commit(_ changes: [StateChange]) async throws(StateStoreError) {
        guard !closed else { throw StateStoreError(.failed, "state store closed") }
        for change in changes {
            switch change {
            case .saveRegistration(let r): registrations[change.key] = r
            case .deleteRegistration: registrations[change.key] = nil
            case .saveRateBucket(let endpoint, let milli, let at):
                buckets[endpoint] = StateRateBucket(endpoint: endpoint, milli: milli, atWallMs: at)
            case .deleteRateBucket(let endpoint): buckets[endpoint] = nil
            case .saveBackoff(let token, let until): backoffs[token] = StateBackoff(token: token, untilWallMs: until)
            case .deleteBackoff(let token): backoffs[token] = nil
            }
        }
    }

    public func close() async { closed = true }
}
