import SIPCore

/// Lines driven one by one, each over a flow of its own (the connection-oriented load engine:
/// one TCP, TLS or WebSocket connection per line, as each phone has).
extension RegistrationLoad {
    /// Line `index` has a flow of its own (the connection-oriented load engine: one TCP, TLS
    /// or WebSocket connection per line, as each phone has): `binding` is its Via sent-by and
    /// Contact from now on (RFC 3261 §18.1.1; RFC 7118 §5.2 for WebSocket). Responses to it are
    /// checked against that sent-by.
    public mutating func bind(_ index: Int, to binding: LocalBinding) {
        slots[index].ownBinding = binding
        slots[index].ownSentBy = ViaSentBy(host: binding.host, port: binding.port)
    }

    /// Line `index` registers now on its binding: a first registration, a re-registration
    /// after its flow came back (RFC 5626 §4.4.1), or a refresh of a held binding. False when
    /// it is in flight already or cannot register (stopped, failed). For a paced engine whose
    /// shell drives lines itself (no ``begin(_:now:)`` queue).
    @discardableResult
    public mutating func startLine(_ index: Int, now: Duration) -> Bool {
        guard !slots[index].active else { return false }
        let binding = slots[index].ownBinding ?? self.binding
        let actions: [RegistrationClient.Action]
        switch slots[index].client.state {
        case .idle:
            activate(index, now: now)
            actions = slots[index].client.start(binding: binding)
        case .waitingForFlow:
            activate(index, now: now)
            actions = slots[index].client.flowRecovered(binding: binding)
        case .registered:
            slots[index].stampRefresh &+= 1
            slots[index].refreshDue = now
            activate(index, now: now)
            actions = slots[index].client.timerFired(.refresh)
        default:
            return false
        }
        apply(actions, slot: index, now: now)
        return true
    }

    /// Line `index` unregisters now (REGISTER with expiry 0 for its Contact); false when it has
    /// nothing to remove or is in flight.
    @discardableResult
    public mutating func unregisterLine(_ index: Int, now: Duration) -> Bool {
        guard !slots[index].active else { return false }
        switch slots[index].client.state {
        case .registered: break
        default: return false
        }
        slots[index].stampRefresh &+= 1
        activate(index, now: now)
        apply(slots[index].client.stop(), slot: index, now: now)
        return true
    }

    /// Line `index`'s flow died (RFC 5626 §4.4): the REGISTER in flight is forgotten (no
    /// outcome: the line is not finished, it re-registers on its next flow through
    /// ``startLine(_:now:)``), the refresh timer stops. Returns whether a REGISTER was in flight.
    @discardableResult
    public mutating func lineLost(_ index: Int, now: Duration) -> Bool {
        let wasActive = slots[index].active
        forgetTransaction(index)
        if wasActive {
            slots[index].active = false
            slots[index].request = []
            slots[index].stampLine &+= 1
            running -= 1
        }
        slots[index].stampRefresh &+= 1
        slots[index].refreshDue = nil
        _ = slots[index].client.flowLost()
        return wasActive
    }

    /// Whether line `index` has a REGISTER in flight.
    public func isInFlight(_ index: Int) -> Bool { slots[index].active }
}
