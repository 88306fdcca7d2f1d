import SIPCore

/// A TURN client (RFC 8656) for one UDP allocation, as a pure state machine: every input
/// returns ``Action``s (datagrams for the server, events), time is the caller's `now` and
/// ``nextDeadline`` says when to call ``tick(now:)``.
///
/// Allocate with long-term credentials (the first request goes without them; the 401 brings
/// REALM and NONCE, RFC 8489 §9.2), a Refresh before the allocation expires (§8) and LIFETIME 0
/// on ``close(now:)``, CreatePermission per peer IP before data is relayed, refreshed every
/// ``Configuration/permissionRefresh`` (< 300 s, §9), Send/Data indications (§11) and, once
/// a channel is bound to a peer, ChannelData (§12; the binding is refreshed before its 600 s).
/// A 438 Stale Nonce retries the request with the new nonce (RFC 8489 §9.2.5).
///
/// Data for a peer whose permission is still being installed is queued (a few datagrams) and
/// sent once the server confirmed it: the server drops Send indications to peers without one.
public struct TURNClient: Sendable {
    public struct Configuration: Sendable, Hashable, CustomStringConvertible {
        /// The TURN server (UDP).
        public var server: UDPSocket.Address
        public var username: String
        /// Long-term password (RFC 8489 §9.2); never printed (``description`` redacts it).
        public var password: String
        /// LIFETIME asked for in Allocate and Refresh (nil: the server's default, 600 s).
        public var requestedLifetime: UInt32? = nil
        /// Refresh this long before the allocation expires (half the lifetime when it is short).
        public var refreshMargin: Duration = .seconds(60)
        /// RFC 8656 §9: permissions last 300 s; refresh them before.
        public var permissionRefresh: Duration = .seconds(240)
        /// RFC 8656 §12: channel bindings last 600 s; refresh them before.
        public var channelRefresh: Duration = .seconds(540)
        /// Bind a channel to each peer data goes to, and use ChannelData (4 octets of framing
        /// instead of 36) once bound (§12). Send indications until then.
        public var useChannels = true
        /// Retransmissions of every TURN request (RFC 8489 §6.2.1 with a short RTO: the
        /// allocation is part of bounded candidate gathering, D17).
        public var timing = STUNClientTransaction.Timing(rto: .milliseconds(100), rc: 7, rm: 16)
        /// SOFTWARE attribute on our requests (nil: none).
        public var software: String? = nil
        /// Datagrams kept per peer while its permission is being installed.
        public var queueLimit = 16

        public init(server: UDPSocket.Address, username: String, password: String) {
            self.server = server
            self.username = username
            self.password = password
        }

        public var description: String { "turn \(username)@\(server) (password redacted)" }
    }

    /// One line per state (RFC 8656 §7, §8).
    public enum State: String, Sendable, Hashable {
        /// Nothing sent yet.
        case idle
        /// Allocate sent (§7.1), before or after the 401 challenge (RFC 8489 §9.2.4).
        case allocating
        /// The allocation exists: relayed address known, refreshed before it expires (§8).
        case allocated
        /// The allocation failed or was lost (error, timeout, 437 to a Refresh).
        case failed
        /// ``close(now:)`` sent a Refresh with LIFETIME 0 (§8): deallocated.
        case closed
    }

    public enum Event: Sendable, Hashable {
        /// §7.3: the relayed transport address, the server-reflexive one (XOR-MAPPED-ADDRESS)
        /// and the granted lifetime.
        case allocated(relayed: UDPSocket.Address, mapped: UDPSocket.Address?, lifetime: Duration)
        /// §8: a Refresh succeeded.
        case refreshed(lifetime: Duration)
        /// §9: the server installed (or refreshed) permissions for these peer IPs.
        case permissionCreated([String])
        /// §9: CreatePermission failed for these peer IPs (403: the server refuses them).
        case permissionFailed([String], TURNError)
        /// §12: a channel is bound to this peer: ChannelData from now on.
        case channelBound(UDPSocket.Address, channel: UInt16)
        /// The allocation failed (Allocate refused or timed out) or was lost (Refresh 437).
        case failed(TURNError)
        /// Application data from a peer (Data indication §11.6 or ChannelData §12.6).
        case data([UInt8], from: UDPSocket.Address)
    }

    public enum Action: Sendable, Hashable {
        /// Send this datagram to ``Configuration/server``.
        case send([UInt8])
        case event(Event)
    }

    enum Request: Sendable, Hashable {
        case allocate
        case refresh(lifetime: UInt32)
        case createPermission([String])
        case channelBind(channel: UInt16, peer: UDPSocket.Address)

        var method: UInt16 {
            switch self {
            case .allocate: STUNMessage.allocate
            case .refresh: STUNMessage.refresh
            case .createPermission: STUNMessage.createPermission
            case .channelBind: STUNMessage.channelBind
            }
        }

        var name: String {
            switch self {
            case .allocate: "Allocate"
            case .refresh: "Refresh"
            case .createPermission: "CreatePermission"
            case .channelBind: "ChannelBind"
            }
        }
    }

    struct InFlight: Sendable {
        var request: Request
        var transaction: STUNClientTransaction
        var deadline: Duration
        /// Carried our credentials (a 401 to it means they are wrong).
        var authenticated: Bool
        /// 438 retries so far (RFC 8489 §9.2.5: a new nonce, then the request again).
        var staleRetries: Int
    }

    /// RFC 8656 §9: one permission per peer IP address.
    struct Permission: Sendable {
        enum Status: Sendable { case requested, installed, failed }
        var status: Status
        /// When to refresh (nil while a CreatePermission for it is in flight).
        var refreshAt: Duration?
        /// Data waiting for the permission.
        var queue: [(data: [UInt8], peer: UDPSocket.Address)] = []
    }

    /// RFC 8656 §12: one channel per peer transport address.
    struct Channel: Sendable {
        var number: UInt16
        var peer: UDPSocket.Address
        var bound: Bool
        var refreshAt: Duration?
    }

    public let configuration: Configuration
    public internal(set) var state = State.idle
    /// Our relayed transport address (§7.3), once allocated.
    public internal(set) var relayedAddress: UDPSocket.Address?
    /// The server-reflexive address the server saw (XOR-MAPPED-ADDRESS in the Allocate response).
    public internal(set) var mappedAddress: UDPSocket.Address?
    let ids: any IdentifierSource
    var realm: String?
    var nonce: String?
    var key: [UInt8]?
    var inFlight: [[UInt8]: InFlight] = [:]
    var refreshAt: Duration?
    var permissions: [String: Permission] = [:]
    var channels: [UDPSocket.Address: Channel] = [:]
    var channelPeers: [UInt16: UDPSocket.Address] = [:]
    var nextChannel = TURNChannelData.channels.lowerBound

    public init(configuration: Configuration, ids: some IdentifierSource) {
        self.configuration = configuration
        self.ids = ids
    }

    // MARK: Commands

    /// RFC 8656 §7.1: the first Allocate (without credentials; the 401 brings realm and nonce).
    public mutating func allocate(now: Duration) -> [Action] {
        guard state == .idle else { preconditionFailure("TURNClient.allocate called twice") }
        state = .allocating
        return start(.allocate, now: now)
    }

    /// RFC 8656 §9.1: permissions for these peer IPs (ports do not matter). Before the
    /// allocation exists they are requested as soon as it does.
    public mutating func createPermissions(for hosts: [String], now: Duration) -> [Action] {
        var fresh: [String] = []
        for host in Set(hosts).sorted() where permissions[host] == nil {
            permissions[host] = Permission(status: .requested)
            fresh.append(host)
        }
        guard state == .allocated, !fresh.isEmpty else { return [] }
        return start(.createPermission(fresh), now: now)
    }

    /// Relays `data` to `peer`: ChannelData on a bound channel, else a Send indication (§11.1),
    /// else (permission not confirmed yet) queued. Asks for the permission (and a channel)
    /// when there is none.
    public mutating func send(_ data: [UInt8], to peer: UDPSocket.Address, now: Duration) -> [Action] {
        guard state == .allocated || state == .allocating else { return [] }
        if let channel = channels[peer], channel.bound {
            return [.send(TURNChannelData.encode(channel: channel.number, data))]
        }
        var actions: [Action] = []
        switch permissions[peer.host]?.status {
        case .installed:
            actions.append(.send(sendIndication(data, to: peer)))
            actions += bindChannelIfWanted(peer, now: now)
        case .requested:
            if permissions[peer.host]!.queue.count < configuration.queueLimit {
                permissions[peer.host]!.queue.append((data, peer))
            }
        case .failed:
            break
        case nil:
            actions += createPermissions(for: [peer.host], now: now)
            permissions[peer.host]?.queue.append((data, peer))
        }
        return actions
    }

    /// RFC 8656 §8: deallocate with a Refresh carrying LIFETIME 0 (fire and forget: the
    /// allocation times out on the server anyway).
    public mutating func close(now: Duration) -> [Action] {
        let wasAllocated = state == .allocated
        state = .closed
        inFlight = [:]
        permissions = [:]
        channels = [:]
        channelPeers = [:]
        refreshAt = nil
        guard wasAllocated else { return [] }
        return start(.refresh(lifetime: 0), now: now)
    }

    // MARK: Input

    /// A datagram from the TURN server: a response to one of our requests, a Data indication
    /// or ChannelData. Anything else is ignored.
    public mutating func receive(_ bytes: [UInt8], now: Duration) -> [Action] {
        if let first = bytes.first, first & 0xC0 == 0x40 {
            guard let (number, data) = TURNChannelData.decode(bytes), let peer = channelPeers[number] else { return [] }
            return [.event(.data(data, from: peer))]
        }
        guard let message = try? STUNMessage(parsing: bytes) else { return [] }
        if message.hasFingerprint && !message.fingerprintMatches { return [] }
        switch message.messageClass {
        case .indication:
            // §11.6: Data indication (XOR-PEER-ADDRESS + DATA).
            guard message.method == STUNMessage.dataIndication, let peer = message.peerAddress,
                let data = message.data
            else { return [] }
            return [.event(.data(data, from: peer.socketAddress))]
        case .request:
            return []
        case .successResponse, .errorResponse:
            return handleResponse(message, now: now)
        }
    }

    /// Retransmissions and timeouts, then the refreshes that are due.
    public mutating func tick(now: Duration) -> [Action] {
        var actions: [Action] = []
        for (id, var flight) in inFlight where flight.deadline <= now {
            for a in flight.transaction.timerFired() {
                switch a {
                case .send(let bytes): actions.append(.send(bytes))
                case .startTimer(let d): flight.deadline = now + d
                case .timedOut:
                    inFlight[id] = nil
                    actions += failed(
                        flight.request,
                        TURNError(.timeout, "no answer to \(flight.request.name) from \(configuration.server)"))
                default: break
                }
            }
            if inFlight[id] != nil { inFlight[id] = flight }
        }
        guard state == .allocated else { return actions }
        if let due = refreshAt, now >= due {
            refreshAt = nil
            actions += start(.refresh(lifetime: configuration.requestedLifetime ?? 600), now: now)
        }
        let due = permissions.filter {
            $0.value.status == .installed && ($0.value.refreshAt.map { now >= $0 } ?? false)
        }
        .keys.sorted()
        if !due.isEmpty {
            for host in due { permissions[host]?.refreshAt = nil }
            actions += start(.createPermission(due), now: now)
        }
        for (peer, channel) in channels where channel.bound && (channel.refreshAt.map { now >= $0 } ?? false) {
            channels[peer]?.refreshAt = nil
            actions += start(.channelBind(channel: channel.number, peer: peer), now: now)
        }
        return actions
    }

    /// When ``tick(now:)`` should run next (nil: nothing scheduled).
    public var nextDeadline: Duration? {
        var deadlines = inFlight.values.map(\.deadline)
        if state == .allocated {
            if let refreshAt { deadlines.append(refreshAt) }
            deadlines += permissions.values.compactMap { $0.status == .installed ? $0.refreshAt : nil }
            deadlines += channels.values.compactMap { $0.bound ? $0.refreshAt : nil }
        }
        return deadlines.min()
    }

    /// Whether data to `peer` can be relayed now (permission installed).
    public func hasPermission(for peer: UDPSocket.Address) -> Bool { permissions[peer.host]?.status == .installed }

    // Requests (TURNClient+Requests.swift) and responses (TURNClient+Responses.swift) are
    // extensions in their own files.
}
