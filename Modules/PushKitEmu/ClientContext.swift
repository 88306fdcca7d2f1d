/// What a policy callback sees of the device, and where it records what it does.
///
/// The emulator reuses one context (and its op buffer) for every callback: no allocation per event.
public struct ClientContext: Sendable {
    /// Virtual time now (ms); the device clock.
    public internal(set) var now: Int64 = 0
    /// Whether the device is locked.
    public internal(set) var deviceLocked = false
    /// Whether the device has network.
    public internal(set) var online = true
    /// The app state while the callback runs.
    public internal(set) var appState: AppState = .foreground
    /// The ops recorded by the current callback, in order.
    public internal(set) var ops: [ClientOp] = []
    /// Set when the policy could not answer this callback (its client process hung, exited or
    /// wrote junk): the emulator records a `CLIENT` violation and stops.
    public internal(set) var fault: ClientFault?
    /// The AES-GCM the app opens sealed pushes with (CryptoKit on iOS): the sealing the run's
    /// gateway uses (``SealBox``).
    public internal(set) var sealing: any SealOpener = SymbolicSealBox()
    var nextUUID: Int32 = 0
    /// The client's own string for each UUID it reported (`ClientBridge`), for output: a
    /// violation names the call by the UUID the client knows it by.
    public internal(set) var uuidNames: [Int32: String] = [:]

    package init(sealing: any SealOpener = SymbolicSealBox()) {
        self.sealing = sealing
        ops.reserveCapacity(16)
    }

    /// A fresh CallKit call UUID (a small integer stands for the UUID).
    public mutating func newCallUUID() -> Int32 {
        defer { nextUUID += 1 }
        return nextUUID
    }

    /// Records an op.
    public mutating func perform(_ op: ClientOp) { ops.append(op) }

    /// The policy could not answer this callback: its ops are dropped and the run stops with a
    /// `CLIENT` violation (a client process that hung, exited or wrote junk).
    public mutating func fail(_ fault: ClientFault) {
        ops.removeAll(keepingCapacity: true)
        self.fault = fault
    }

    /// Starts a callback: the device facts it sees, an empty op list (live mode calls it too).
    package mutating func begin(now: Int64, locked: Bool, online: Bool, appState: AppState) {
        self.now = now
        deviceLocked = locked
        self.online = online
        self.appState = appState
        ops.removeAll(keepingCapacity: true)
        fault = nil
    }
}
