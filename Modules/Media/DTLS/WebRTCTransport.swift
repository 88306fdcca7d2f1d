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
/// Not `Sendable`: owned by the session actor.
final class WebRTCTransport {
    enum Output {
        case send([UInt8], to: UDPSocket.Address)
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
    private var earlyDTLS: [(bytes: [UInt8], from: UDPSocket.Address)] = []
    private var dtlsPeer: UDPSocket.Address?
    private var selected: UDPSocket.Address?
    /// The best valid pair's remote address before a pair is selected (RFC 8445 §12.1).
    private var validRemote: UDPSocket.Address?
    /// The DTLS client has sent its first flight (for the current ``dtls``).
    private var clientStarted = false
    private var secured = false
    private(set) var gatheringComplete = true
    private var remoteFingerprint: CertificateFingerprint?

    init(configuration: WebRTCConfiguration, local: UDPSocket.Address, ids: some IdentifierSource) throws(DTLSError) {
        self.configuration = configuration
        certificate = try DTLSCertificate()
        let (ufrag, pwd) = ICEAgent.makeCredentials(using: ids)
        ice = ICEAgent(configuration: configuration.ice, role: configuration.iceRole, ufrag: ufrag, pwd: pwd, ids: ids)
        let hosts =
            configuration.hostAddresses
            ?? (local.host == "0.0.0.0"
                ? ICEHostInterfaces.addresses(includeLoopback: configuration.includeLoopback) : [local.host])
        _ = ice.addHostCandidates(hosts, port: local.port)
    }

    /// Starts server-reflexive gathering when a STUN server is configured.
    func start(now: Duration) -> [Output] {
        guard let server = configuration.stunServer else { return [] }
        gatheringComplete = false
        return map(ice.gatherServerReflexive(server: server, now: now), now: now)
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
                profiles: configuration.srtpProfiles)
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
            let (u, p) = ICEAgent.makeCredentials(using: SystemIdentifierSource())
            out += map(ice.restart(ufrag: u, pwd: p), now: now)
        }
        let candidates = remoteICE.candidates.compactMap(ICEAgentCandidate.init(sdp:))
        out += map(
            ice.setRemote(ufrag: remoteICE.ufrag, pwd: remoteICE.pwd, candidates: candidates, lite: lite, now: now),
            now: now)
        return out
    }

    /// The role of the current DTLS association (nil before the remote description).
    var dtlsRole: DTLSRole? { dtls?.role }

    /// RFC 8445 §9: new local credentials before a re-offer / re-answer.
    func restartICE(ufrag: String, pwd: String, now: Duration) -> [Output] {
        map(ice.restart(ufrag: ufrag, pwd: pwd), now: now)
    }

    func receiveSTUN(_ bytes: [UInt8], from source: UDPSocket.Address, now: Duration) -> [Output] {
        map(ice.receive(bytes, from: source, now: now), now: now)
    }

    func receiveDTLS(_ bytes: [UInt8], from source: UDPSocket.Address, now: Duration) -> [Output] {
        guard let dtls else {
            if earlyDTLS.count < 16 { earlyDTLS.append((bytes, source)) }
            return []
        }
        dtlsPeer = source
        return map(dtls.receive(bytes), now: now)
    }

    var nextDeadline: Duration? {
        [ice.nextDeadline, dtlsDeadline].compactMap { $0 }.min()
    }

    func tick(now: Duration) -> [Output] {
        var out = map(ice.tick(now: now), now: now)
        if let d = dtlsDeadline, d <= now, let dtls {
            dtlsDeadline = nil
            out += map(dtls.handleTimeout(), now: now)
        }
        return out
    }

    func close() -> [Output] { dtls.map { map($0.close(), now: .zero) } ?? [] }

    private func map(_ actions: [ICEAgent.Action], now: Duration) -> [Output] {
        var out: [Output] = []
        for a in actions {
            switch a {
            case .send(let bytes, let to): out.append(.send(bytes, to: to))
            case .event(let e):
                switch e {
                case .stateChanged(let s):
                    out.append(.event(.iceStateChanged(s)))
                    if s == .connected, selected == nil, let pair = ice.bestValidPair() {
                        validRemote = pair.remote.address
                        out += startClientIfReady(now: now)
                    }
                    if s == .failed && ice.selectedPair == nil {
                        out.append(.event(.iceFailed))
                        out.append(.stopSending)
                    }
                case .selectedPair(let pair):
                    selected = pair.remote.address
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
                    gatheringComplete = true
                    out.append(.gatheringDone)
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
    private var destination: UDPSocket.Address? { selected ?? validRemote ?? dtlsPeer }

    private func map(_ actions: [DTLSTransport.Action], now: Duration) -> [Output] {
        var out: [Output] = []
        for a in actions {
            switch a {
            case .send(let bytes):
                if let to = destination { out.append(.send(bytes, to: to)) }
            case .startTimer(let d): dtlsDeadline = now + d
            case .connected(let keys):
                secured = true
                dtlsDeadline = nil
                out.append(.event(.dtlsConnected(profile: keys.local.profile, role: dtls?.role ?? .client)))
                if let to = destination { out.append(.secured(keys, remote: to)) }
            case .failed(let e):
                dtlsDeadline = nil
                out.append(.event(.dtlsFailed(e)))
                out.append(.stopSending)
            }
        }
        return out
    }
}
