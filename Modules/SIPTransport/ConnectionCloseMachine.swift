/// The orderly end of one client stream connection, whichever side starts it: the WebSocket
/// closing handshake (RFC 6455 §7.1.1–7.1.2), then TLS close_notify (RFC 8446 §6.1, RFC 5246
/// §7.2.1), then the TCP close — each layer closed before the one below it, and each wait
/// bounded, so a dead or silent peer never holds the connection longer than ``bound``.
///
/// Pure: events in, ``Action``s out; ``StreamConnection`` performs them. The client waits for
/// the server to close TCP first (§7.1.1: "the client SHOULD wait for the server to close the
/// connection"), which is also what lets a TLS server's own close_notify reach us instead of
/// failing with EPIPE against a socket we already closed.
package struct ConnectionCloseMachine: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// Data flows; nobody started closing.
        case open
        /// RFC 6455 §7.1.2: we sent our Close and wait for the peer's (data frames are dropped).
        case awaitingPeerClose
        /// Every layer above TCP is closed on our side (Close exchanged, close_notify sent);
        /// §7.1.1: we wait for the server's TCP close (or its close_notify) before ours.
        case awaitingPeerTransportClose
        /// §7.1.1 "Close the WebSocket Connection": the socket is closed.
        case closed
    }

    public enum Action: Sendable, Hashable {
        /// Queue a WebSocket Close frame (§5.5.1) and write it.
        case sendWebSocketClose
        /// Queue a TLS close_notify alert and write it.
        case sendCloseNotify
        /// Start the bound; call ``timerFired()`` when it runs out. Always before a write, so
        /// a peer that stopped reading cannot hold the close in a blocked write.
        case armTimer(Duration)
        /// Close the socket (our FIN); the connection is over.
        case closeSocket
    }

    public private(set) var state = State.open
    public let webSocket: Bool
    public let tls: Bool
    /// How long the whole closing may wait for the peer, from its first step.
    public let bound: Duration

    public init(webSocket: Bool, tls: Bool, bound: Duration) {
        self.webSocket = webSocket
        self.tls = tls
        self.bound = bound
    }

    /// We close: §7.1.2 Close first on a WebSocket; on TLS, close_notify and wait for the
    /// peer's; plain TCP simply closes.
    public mutating func closeLocally() -> [Action] {
        guard state == .open else { return [] }
        if webSocket {
            state = .awaitingPeerClose
            return [.armTimer(bound), .sendWebSocketClose]
        }
        if tls {
            state = .awaitingPeerTransportClose
            return [.armTimer(bound), .sendCloseNotify]
        }
        state = .closed
        return [.closeSocket]
    }

    /// The peer's Close frame arrived (when it started, the session has already queued our
    /// echo, §5.5.1): the WebSocket is closed both ways; close TLS and wait for the server's FIN.
    public mutating func peerWebSocketClosed() -> [Action] {
        switch state {
        case .open:
            state = .awaitingPeerTransportClose
            return [.armTimer(bound)] + (tls ? [.sendCloseNotify] : [])
        case .awaitingPeerClose:
            state = .awaitingPeerTransportClose
            return tls ? [.sendCloseNotify] : []  // the bound armed by closeLocally still runs
        case .awaitingPeerTransportClose, .closed:
            return []
        }
    }

    /// The peer closed below the WebSocket: TLS close_notify or TCP FIN (read returned 0).
    /// Expected once we wait for it; earlier, the peer skipped a layer — answer close_notify
    /// with ours (RFC 8446 §6.1) and close.
    public mutating func peerClosedTransport(closeNotify: Bool) -> [Action] {
        switch state {
        case .open, .awaitingPeerClose:
            state = .closed
            return (tls && closeNotify ? [.sendCloseNotify] : []) + [.closeSocket]
        case .awaitingPeerTransportClose:
            state = .closed
            return [.closeSocket]
        case .closed:
            return []
        }
    }

    /// The bound ran out: the peer never answered our Close, or never closed TCP.
    public mutating func timerFired() -> [Action] {
        switch state {
        case .awaitingPeerClose:
            state = .closed
            return (tls ? [.sendCloseNotify] : []) + [.closeSocket]
        case .awaitingPeerTransportClose:
            state = .closed
            return [.closeSocket]
        case .open, .closed:
            return []
        }
    }
}
