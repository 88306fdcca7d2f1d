import Media
import SIPDialog

/// ICE beyond host candidates for a WebRTC ``Call``: server-reflexive gathering before the SDP
/// goes out (RFC 8445 §5.1.1.2) and ICE restarts by re-INVITE (RFC 8445 §9, RFC 8839
/// §4.4.1.1.1).
///
/// There is no trickle ICE over SIP here, so the SDP waits for gathering: with a STUN server
/// (``CallOptions/webRTC`` `stunServer`) the caller's INVITE and the callee's 200 wait until the
/// server answered, or at most `ice.gatheringTimeout` (500 ms by default), then carry what was
/// gathered by then (host candidates only, when the server is dead).
extension Call {
    /// Whether this call gathers server-reflexive or relayed candidates (WebRTC with a STUN
    /// or TURN server).
    var gathersServerReflexive: Bool {
        isWebRTC && (options.webRTC.stunServer != nil || options.webRTC.turn != nil)
    }

    /// With ``ICETransportPolicy/relay`` and no relayed candidate, the call cannot have media:
    /// the reason to end it with, before the INVITE or the 200 goes out.
    func relayOnlyFailure() async -> String? {
        guard isWebRTC, options.webRTC.icePolicy == .relay else { return nil }
        if let error = await media.relayFailure { return "TURN allocation failed (\(error))" }
        if options.webRTC.turn == nil { return "--ice-policy relay needs a TURN server" }
        return nil
    }

    /// A TURN allocation failed or was lost: fatal with relay-only ICE, else ICE goes on with
    /// the host and server-reflexive candidates.
    func turnFailed(_ error: TURNError) async {
        guard options.webRTC.icePolicy == .relay else {
            sink.yield(.relayFailed(reason: error.description))
            return
        }
        await run(machine.hangUp(reason: .mediaFailed("TURN allocation failed (\(error))")))
    }

    /// Waits for candidate gathering (bounded by the ICE agent's gathering timeout) and takes
    /// the gathered candidates into ``capabilities``.
    func awaitGathering() async {
        guard gathersServerReflexive, !reportedGathering else { return }
        let started = clock.now
        guard let local = await media.webRTCLocalParameters() else { return }
        reportedGathering = true
        capabilities.ice = local.ice
        let count = { (type: String) in local.ice.candidates.filter { $0.type == type }.count }
        sink.yield(
            .iceGathered(
                host: count("host"), serverReflexive: count("srflx"), relayed: count("relay"),
                waitedMilliseconds: CallStatistics.milliseconds(started.duration(to: clock.now))))
    }

    /// Caller with a STUN server: the INVITE's offer is rebuilt with the gathered candidates
    /// before it goes out (``Call/init(calling:from:endpoint:binding:credentials:options:source:sink:clock:ids:)``
    /// built it from the host candidates, synchronously).
    func gatherBeforeOffering() async {
        guard gathersServerReflexive, machine.role == .caller, currentOffer != nil else { return }
        await awaitGathering()
        let offer = Self.makeOffer(capabilities, origin: origin)
        guard (try? usage.replaceInitialOffer(SessionBody(text: offer.serialized()))) != nil else { return }
        currentOffer = offer
    }

    /// Restarts ICE (RFC 8445 §9): new ufrag/pwd in a re-INVITE, new checks; media stays on
    /// the current pair (consent included) until the new checks nominate one, and the DTLS
    /// association is kept (same fingerprint, `a=setup` pinned to our role, RFC 8842 §5).
    /// Only in an active WebRTC call (not on hold: a re-offer keeps the direction). When the
    /// re-INVITE cannot go out (another offer/answer in progress) the agent has restarted
    /// anyway: the old pair keeps working and the next offer or answer carries the new
    /// credentials.
    public func restartICE() async {
        guard isWebRTC, machine.state == .active, negotiated != nil else { return }
        await restartLocalICE(byPeer: false)
        let offer = nextOffer(direction: negotiated?.direction ?? .sendrecv)
        guard let actions = try? usage.reinvite(offer: offer) else { return }
        await execute(actions)
    }

    /// New local ICE credentials (our restart, or the peer's seen in its re-offer).
    func restartLocalICE(byPeer: Bool) async {
        guard let local = await media.restartICE() else { return }
        capabilities.ice = local.ice
        iceRestart = (clock.now, byPeer)
    }

    /// Whether `offered` (a re-offer's negotiated stream) carries new ICE credentials
    /// (RFC 8839 §4.4.1.1.1: a changed ice-ufrag or ice-pwd is an ICE restart).
    func isICERestart(_ offered: NegotiatedAudio) -> Bool {
        guard isWebRTC, let old = negotiated?.remoteICE, let new = offered.remoteICE else { return false }
        return old.ufrag != new.ufrag || old.pwd != new.pwd
    }

    /// `a=setup` that keeps the current DTLS association in a re-offer or re-answer
    /// (RFC 8842 §5.3, §5.5): our role, `active` as client, `passive` as server.
    var pinnedSetup: SetupRole? {
        dtlsRole.map { $0 == .client ? .active : .passive }
    }

    /// The first pair selected after a restart: report it with the restart's duration.
    func reportRestartedPair(local: UDPSocket.Address, remote: UDPSocket.Address) -> Bool {
        guard let (at, byPeer) = iceRestart else { return false }
        iceRestart = nil
        sink.yield(
            .iceRestarted(
                byPeer: byPeer, local: "\(local.host):\(local.port)", remote: "\(remote.host):\(remote.port)",
                milliseconds: CallStatistics.milliseconds(at.duration(to: clock.now))))
        return true
    }
}
