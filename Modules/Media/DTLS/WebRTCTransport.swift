import SIPCore

/// ICE agent + DTLS-SRTP association for one socket: what a ``MediaSession`` runs before SRTP
/// media flows. Inputs are demultiplexed datagrams (RFC 7983), the remote description and
/// time; outputs are datagrams, events and, once secured, the SRTP keys and where to send.
///
/// DTLS records that arrive before the answer (WEBRTC-NOTES: a relay's ClientHello can beat
/// the 200 OK) are kept and replayed once our role and the peer's fingerprint are known.
///
/// As the DTLS client we start the handshake on the first valid pair (ICE `connected`), not
/// on the nominated one: RFC 8445 §12.1 lets an agent send data on any valid pair before a
/// pair is selected, and a controlling peer may nominate late (rtpengine waits 100 ms after
/// its first valid pair). Records then follow the selected pair once there is one.
///
/// With a TURN server (``WebRTCConfiguration/turn``) a ``TURNClient`` allocates a relayed
/// candidate during gathering. Whatever ICE, DTLS or the media sends from it goes to the TURN
/// server wrapped (Send indication or ChannelData), and what the server relays back is
/// unwrapped and demultiplexed again (RFC 7983) as if it came from the peer.
/// Not `Sendable`: owned by the session actor.
final class WebRTCTransport {
    /// Where datagrams for the peer go: straight to it, or through our TURN allocation.
    struct Route: Equatable {
        var address: UDPSocket.Address
        var relayed: Bool
    }

    enum Output {
        case send([UInt8], to: UDPSocket.Address)
        /// RTP/RTCP that arrived through the TURN relay, from the peer `from`.
        case relayedMedia([UInt8], from: UDPSocket.Address)
        case event(WebRTCEvent)
        /// SRTP keys and the ICE-selected destination: start media.
        case secured(SRTPKeys, remote: UDPSocket.Address)
        /// ICE moved to another pair (restart): send media there.
        case remoteChanged(UDPSocket.Address)
        /// Consent lost or failure: stop sending (RFC 7675 §5.1).
        case stopSending
        /// Candidate gathering ended (the SDP can go out).
        case gatheringDone
    }

    let configuration: WebRTCConfiguration
    let certificate: DTLSCertificate
    private(set) var ice: ICEAgent
    private var dtls: DTLSTransport?
    private var dtlsDeadline: Duration?
    private var earlyDTLS: [(bytes: [UInt8], from: Route)] = []
    private var dtlsPeer: Route?
    private var selected: Route?
    /// The best valid pair's remote address before a pair is selected (RFC 8445 §12.1).
    private var validRemote: Route?
    private let ids: any IdentifierSource
    private var turn: TURNClient?
    /// Server-reflexive / relayed gathering still running.
    private var srflxPending = false
    private var relayPending = false
    /// When relayed gathering gives up (the same bound as the STUN server's, D17).
    private var relayDeadline: Duration?
    /// Why there is no relayed candidate (allocation refused, timed out or lost).
    private(set) var relayFailure: TURNError?
    /// The DTLS client has sent its first flight (for the current ``dtls``).
    private var clientStarted = false
    private var secured = false
    var gatheringComplete: Bool { !srflxPending && !relayPending }
    private var remoteFingerprint: CertificateFingerprint?

    init(configuration: WebRTCConfiguration, local: UDPSocket.Address, ids: some IdentifierSource) throws(DTLSError) {
        self.configuration = configuration
        self.ids = ids
        certificate = try DTLSCertificate()
        let (ufrag, pwd) = ICEAgent.makeCredentials()
        ice = ICEAgent(configuration: configuration.ice, role: configuration.iceRole, ufrag: ufrag, pwd: pwd, ids: ids)
        let hosts =
            configuration.hostAddresses
            ?? (local.host == "0.0.0.0"
                ? ICEHostInterfaces.addresses(includeLoopback: configuration.includeLoopback) : [local.host])
        // Relay-only policy: no host candidate is offered or paired (W3C iceTransportPolicy).
        if configuration.icePolicy == .all { _ = ice.addHostCandidates(hosts, port: local.port) }
    }

    /// Starts server-reflexive gathering (STUN server) and the TURN allocation, as configured.
    func start(now: Duration) -> [Output] {
        var out: [Output] = []
        if let server = configuration.stunServer, configuration.icePolicy == .all {
            srflxPending = true
            out += map(ice.gatherServerReflexive(server: server, now: now), now: now)
        }
        if let t = configuration.turn, turn == nil {
            var client = TURNClient(configuration: t, ids: ids)
            relayPending = true
            relayDeadline = now + configuration.ice.gatheringTimeout
            let actions = client.allocate(now: now)
            turn = client
            out += map(actions, now: now)
        }
        return out
    }

    /// Whether media to the current destination goes through the TURN relay.
    var mediaRelayed: Bool { (selected ?? validRemote ?? dtlsPeer)?.relayed ?? false }

    /// Wraps an RTP/RTCP packet for the peer `to` through the TURN allocation.
    func relay(_ packet: [UInt8], to peer: UDPSocket.Address, now: Duration) -> [Output] {
        guard var t = turn else { return [] }
        let actions = t.send(packet, to: peer, now: now)
        turn = t
        return map(actions, now: now)
    }

    var localParameters: WebRTCLocalParameters {
        WebRTCLocalParameters(
            ice: ICEParameters(
                ufrag: ice.localCredentials.ufrag, pwd: ice.localCredentials.pwd,
                candidates: ice.localCandidates.filter { $0.kind != .peerReflexive }.map(\.sdp)),
            fingerprint: certificate.fingerprint)
    }

    /// The peer's description: ICE credentials and candidates, fingerprint and `a=setup`.
    func setRemote(
        ice remoteICE: ICEParameters, fingerprint: CertificateFingerprint, setup: SetupRole, lite: Bool, now: Duration
    ) throws(DTLSError) -> [Output] {
        guard let role = DTLSRole(remoteSetup: setup) else {
            throw DTLSError(.handshakeFailed, "a=setup:\(setup.rawValue) leaves no DTLS role")
        }
        var out: [Output] = []
        // RFC 8842 §5: a re-offer or re-answer with the same fingerprint keeps the association
        // when its a=setup leaves us our role — or says actpass (a re-offer from a peer that
        // does not pin the role; our answer then pins ours, see dtlsRole).
        let keep = dtls != nil && remoteFingerprint == fingerprint && (dtls?.role == role || setup == .actpass)
        if !keep {
            remoteFingerprint = fingerprint
            let d = try DTLSTransport(
                role: role, certificate: certificate, expectedFingerprint: fingerprint,
                profiles: configuration.srtpProfiles, retransmission: configuration.dtlsRetransmission)
            dtls = d
            secured = false
            clientStarted = false
            if role == .server {
                out += map(d.start(), now: now)
                for early in earlyDTLS {
                    dtlsPeer = early.from
                    out += map(d.receive(early.bytes), now: now)
                }
            } else {
                out += startClientIfReady(now: now)
            }
            earlyDTLS = []
        }
        if let current = ice.remoteCredentials, current.ufrag != remoteICE.ufrag {
            // The peer restarted (RFC 8445 §9) without us calling restartICE(): restart too.
            let (u, p) = ICEAgent.makeCredentials()
            out += map(ice.restart(ufrag: u, pwd: p), now: now)
        }
        let candidates = remoteICE.candidates.compactMap(ICEAgentCandidate.init(sdp:))
        // RFC 8656 §9: permissions for the peer's candidates before checks go through the relay
        // (and so that the peer's own checks to our relayed candidate are let in).
        out += turnCommand(now: now) { t in
            guard let relayed = t.relayedAddress else { return [] }
            let hosts = candidates.map(\.address.host).filter { $0.contains(":") == relayed.host.contains(":") }
            return t.createPermissions(for: hosts, now: now)
        }
        out += map(
            ice.setRemote(ufrag: remoteICE.ufrag, pwd: remoteICE.pwd, candidates: candidates, lite: lite, now: now),
            now: now)
        return out
    }

    private func turnCommand(now: Duration, _ body: (inout TURNClient) -> [TURNClient.Action]) -> [Output] {
        guard var t = turn else { return [] }
        let actions = body(&t)
        turn = t
        return map(actions, now: now)
    }

    /// The role of the current DTLS association (nil before the remote description).
    var dtlsRole: DTLSRole? { dtls?.role }

    /// RFC 8445 §9: new local credentials before a re-offer / re-answer.
    func restartICE(ufrag: String, pwd: String, now: Duration) -> [Output] {
        map(ice.restart(ufrag: ufrag, pwd: pwd), now: now)
    }

    func receiveSTUN(_ bytes: [UInt8], from source: UDPSocket.Address, now: Duration) -> [Output] {
        if turn != nil, source == configuration.turn?.server {
            return turnCommand(now: now) { $0.receive(bytes, now: now) }
        }
        return map(ice.receive(bytes, from: source, now: now), now: now)
    }

    /// RFC 8656 §12.4 ChannelData from the TURN server.
    func receiveChannelData(_ bytes: [UInt8], from source: UDPSocket.Address, now: Duration) -> [Output] {
        guard turn != nil, source == configuration.turn?.server else { return [] }
        return turnCommand(now: now) { $0.receive(bytes, now: now) }
    }

    func receiveDTLS(_ bytes: [UInt8], from source: UDPSocket.Address, now: Duration) -> [Output] {
        receiveDTLS(bytes, route: Route(address: source, relayed: false), now: now)
    }

    private func receiveDTLS(_ bytes: [UInt8], route: Route, now: Duration) -> [Output] {
        guard let dtls else {
            if earlyDTLS.count < 16 { earlyDTLS.append((bytes, route)) }
            return []
        }
        dtlsPeer = route
        return map(dtls.receive(bytes), now: now)
    }

    /// Data the TURN server relayed from `peer` to our relayed candidate: demultiplexed again.
    private func receiveRelayed(_ bytes: [UInt8], from peer: UDPSocket.Address, now: Duration) -> [Output] {
        switch PacketDemultiplexer.classify(bytes) {
        case .stun:
            guard let relayed = turn?.relayedAddress else { return [] }
            return map(ice.receive(bytes, from: peer, localAddress: relayed, now: now), now: now)
        case .dtls: return receiveDTLS(bytes, route: Route(address: peer, relayed: true), now: now)
        case .rtp, .rtcp: return [.relayedMedia(bytes, from: peer)]
        default: return []
        }
    }

    var nextDeadline: Duration? {
        [ice.nextDeadline, dtlsDeadline, turn?.nextDeadline, relayPending ? relayDeadline : nil].compactMap { $0 }.min()
    }

    func tick(now: Duration) -> [Output] {
        var out = map(ice.tick(now: now), now: now)
        out += turnCommand(now: now) { $0.tick(now: now) }
        if relayPending, let d = relayDeadline, now >= d {
            let error = TURNError(
                .timeout, "no allocation from \(configuration.turn?.server.description ?? "") within the gathering time"
            )
            out += relayGatheringFailed(error)
        }
        if let d = dtlsDeadline, d <= now, let dtls {
            dtlsDeadline = nil
            out += map(dtls.handleTimeout(), now: now)
        }
        return out
    }

    func close() -> [Output] {
        var out = dtls.map { map($0.close(), now: .zero) } ?? []
        out += turnCommand(now: .zero) { $0.close(now: .zero) }
        return out
    }

    /// No relayed candidate: gathering ends without it; relay-only ICE cannot work.
    private func relayGatheringFailed(_ error: TURNError) -> [Output] {
        relayFailure = error
        var out: [Output] = [.event(.turnFailed(error))]
        if relayPending {
            relayPending = false
            if gatheringComplete { out.append(.gatheringDone) }
        }
        if configuration.icePolicy == .relay {
            out.append(.event(.iceFailed))
            out.append(.stopSending)
        }
        return out
    }

    private func map(_ actions: [TURNClient.Action], now: Duration) -> [Output] {
        var out: [Output] = []
        for a in actions {
            switch a {
            case .send(let bytes):
                if let server = configuration.turn?.server { out.append(.send(bytes, to: server)) }
            case .event(let e):
                switch e {
                case .allocated(let relayed, let mapped, _):
                    guard relayPending else {
                        // Too late for the SDP (no trickle ICE): give the allocation back.
                        out += turnCommand(now: now) { $0.close(now: now) }
                        continue
                    }
                    relayPending = false
                    out.append(.event(.relayAllocated(relayed: relayed, mapped: mapped)))
                    if let server = configuration.turn?.server {
                        out += map(ice.addRelayCandidate(relayed: relayed, mapped: mapped, server: server), now: now)
                    }
                    if gatheringComplete { out.append(.gatheringDone) }
                case .failed(let error):
                    if relayPending || configuration.icePolicy == .relay || selected?.relayed == true {
                        out += relayGatheringFailed(error)
                    } else {
                        relayFailure = error
                        out.append(.event(.turnFailed(error)))
                    }
                case .data(let bytes, let peer):
                    out += receiveRelayed(bytes, from: peer, now: now)
                case .refreshed, .permissionCreated, .permissionFailed, .channelBound:
                    break
                }
            }
        }
        return out
    }

    private func map(_ actions: [ICEAgent.Action], now: Duration) -> [Output] {
        var out: [Output] = []
        for a in actions {
            switch a {
            case .send(let bytes, let to): out.append(.send(bytes, to: to))
            case .sendRelayed(let bytes, let to):
                out += turnCommand(now: now) { $0.send(bytes, to: to, now: now) }
            case .event(let e):
                switch e {
                case .stateChanged(let s):
                    out.append(.event(.iceStateChanged(s)))
                    if s == .connected, selected == nil, let pair = ice.bestValidPair() {
                        validRemote = Route(address: pair.remote.address, relayed: pair.local.kind == .relayed)
                        out += startClientIfReady(now: now)
                    }
                    if s == .failed && ice.selectedPair == nil {
                        out.append(.event(.iceFailed))
                        out.append(.stopSending)
                    }
                case .selectedPair(let pair):
                    selected = Route(address: pair.remote.address, relayed: pair.local.kind == .relayed)
                    out.append(.event(.selectedPair(local: pair.local.address, remote: pair.remote.address)))
                    if secured {
                        out.append(.remoteChanged(pair.remote.address))
                    } else {
                        out += startClientIfReady(now: now)
                    }
                case .roleChanged(let r): out.append(.event(.iceRoleChanged(r)))
                case .consentLost:
                    out.append(.event(.consentLost))
                    out.append(.stopSending)
                case .gatheringComplete:
                    guard srflxPending else { continue }
                    srflxPending = false
                    if gatheringComplete { out.append(.gatheringDone) }
                case .localCandidate, .peerReflexiveRemote: break
                }
            }
        }
        return out
    }

    /// The DTLS client's first flight, once there is a pair to send it on (selected or valid).
    private func startClientIfReady(now: Duration) -> [Output] {
        guard let dtls, dtls.role == .client, !clientStarted, selected != nil || validRemote != nil else { return [] }
        clientStarted = true
        return map(dtls.start(), now: now)
    }

    /// Where DTLS records and, once keyed, media go: the selected pair, else the best valid
    /// pair, else wherever the peer's DTLS came from (we are the server).
    private var destination: Route? { selected ?? validRemote ?? dtlsPeer }

    private func map(_ actions: [DTLSTransport.Action], now: Duration) -> [Output] {
        var out: [Output] = []
        for a in actions {
            switch a {
            case .send(let bytes):
                guard let to = destination else { continue }
                if to.relayed {
                    out += turnCommand(now: now) { $0.send(bytes, to: to.address, now: now) }
                } else {
                    out.append(.send(bytes, to: to.address))
                }
            case .startTimer(let d): dtlsDeadline = now + d
            case .connected(let keys):
                secured = true
                dtlsDeadline = nil
                out.append(.event(.dtlsConnected(profile: keys.local.profile, role: dtls?.role ?? .client)))
                if let to = destination { out.append(.secured(keys, remote: to.address)) }
            case .failed(let e):
                dtlsDeadline = nil
                out.append(.event(.dtlsFailed(e)))
                out.append(.stopSending)
            }
        }
        return out
    }
}
