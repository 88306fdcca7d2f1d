/// Why the server gave up on the phone and moved to the next target (voicemail, another device).
public enum FailoverReason: String, Sendable, Hashable, Codable {
    /// Step 3: no push-ack within the ack window — the phone is dead or offline.
    case noAck = "no_ack"
    /// Step 4: acked, but no fresh REGISTER (+qualify) within the register wait.
    case noRegister = "no_register"
    /// No registration and no push token: nothing to wake.
    case noToken = "no_token"
    /// APNs refused the push (bad headers, stale or wrong-environment token).
    case apnsRejected = "apns_rejected"
    /// The INVITE got no final answer from the phone before Timer B.
    case inviteTimeout = "invite_timeout"
    /// The user declined on the phone (603): next target / voicemail.
    case declined
}

/// What the wake decision asks its shell (the simulation, or a live SIP proxy) to do.
public enum WakeAction: Sendable, Hashable {
    /// Nothing.
    case none
    /// Send OPTIONS to the registered contact and start the qualify timer.
    case qualify
    /// Send the INVITE to the registered contact (direct ring, or the held INVITE after wake).
    case sendInvite(direct: Bool)
    /// Send a VoIP push (`apns-expiration: 0`, priority 10, caller + push-id) and start the ack
    /// window.
    case sendPush
    /// Start the register wait (the ack arrived).
    case awaitRegister
    /// Give up on this phone.
    case failover(FailoverReason)
    /// Give up on a phone that has the INVITE: CANCEL it (so it stops ringing), then fail over.
    case cancelAndFailover(FailoverReason)
    /// The caller left after the INVITE went out: send CANCEL.
    case sendCancel
    /// The caller left before any INVITE: stop, nothing to send.
    case stop
    /// The caller left after the phone woke, before the INVITE: tell the fresh contact so the
    /// placeholder ends now (option `gone_notice`; astra-wakegw sends the held INVITE and CANCELs
    /// it, docs/wake-gateway.md "Gone notice").
    case sendGoneNotice
}
