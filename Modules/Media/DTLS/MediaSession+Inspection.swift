/// Read-only views of a WebRTC ``MediaSession``'s state, for tests that wait on a positive
/// condition or check a state instead of sleeping on the wall clock (docs/decisions.md D4).
extension MediaSession {
    /// Peer-reflexive remote candidates the ICE agent learnt from the peer's checks (RFC 8445
    /// §7.3.1.3): before the remote description, the proof that its checks arrived first.
    var peerReflexiveRemoteCount: Int {
        webrtc?.ice.remoteCandidates.filter { $0.kind == .peerReflexive }.count ?? 0
    }

    /// Whether DTLS keyed SRTP (or SDES keys were applied) and a destination is set: without
    /// both, no media can be sent or played.
    var canCarryMedia: Bool { (outbound != nil || inbound != nil) && remote != nil }
}
