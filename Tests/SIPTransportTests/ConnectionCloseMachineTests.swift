import Testing

@testable import SIPTransport

/// The closing order of a client stream connection, both directions (RFC 6455 §7.1.1–7.1.2,
/// RFC 8446 §6.1), as pure transitions.
@Suite struct ConnectionCloseMachineTests {
    let bound = Duration.seconds(2)

    @Test func weCloseAWSSConnection() {
        var m = ConnectionCloseMachine(webSocket: true, tls: true, bound: bound)
        #expect(m.closeLocally() == [.armTimer(bound), .sendWebSocketClose])
        #expect(m.state == .awaitingPeerClose)
        #expect(m.closeLocally() == [])  // once
        #expect(m.peerWebSocketClosed() == [.sendCloseNotify])  // the bound already runs
        #expect(m.state == .awaitingPeerTransportClose)
        #expect(m.peerClosedTransport(closeNotify: true) == [.closeSocket])
        #expect(m.state == .closed)
        #expect(m.timerFired() == [])
    }

    @Test func thePeerClosesAWSSConnection() {
        var m = ConnectionCloseMachine(webSocket: true, tls: true, bound: bound)
        #expect(m.peerWebSocketClosed() == [.armTimer(bound), .sendCloseNotify])
        #expect(m.peerClosedTransport(closeNotify: false) == [.closeSocket])
    }

    @Test func plainWebSocketSendsNoCloseNotify() {
        var m = ConnectionCloseMachine(webSocket: true, tls: false, bound: bound)
        #expect(m.closeLocally() == [.armTimer(bound), .sendWebSocketClose])
        #expect(m.peerWebSocketClosed() == [])
        #expect(m.peerClosedTransport(closeNotify: false) == [.closeSocket])
        var peerFirst = ConnectionCloseMachine(webSocket: true, tls: false, bound: bound)
        #expect(peerFirst.peerWebSocketClosed() == [.armTimer(bound)])
    }

    @Test func aSilentPeerIsBoundedAtEachStep() {
        var noClose = ConnectionCloseMachine(webSocket: true, tls: true, bound: bound)
        _ = noClose.closeLocally()
        #expect(noClose.timerFired() == [.sendCloseNotify, .closeSocket])
        var noFIN = ConnectionCloseMachine(webSocket: true, tls: true, bound: bound)
        _ = noFIN.peerWebSocketClosed()
        #expect(noFIN.timerFired() == [.closeSocket])
    }

    @Test func tlsAndTCPWithoutWebSocket() {
        var tls = ConnectionCloseMachine(webSocket: false, tls: true, bound: bound)
        #expect(tls.closeLocally() == [.armTimer(bound), .sendCloseNotify])
        #expect(tls.peerClosedTransport(closeNotify: true) == [.closeSocket])
        var tcp = ConnectionCloseMachine(webSocket: false, tls: false, bound: bound)
        #expect(tcp.closeLocally() == [.closeSocket])
    }

    @Test func aPeerThatSkipsTheWebSocketCloseGetsOurCloseNotify() {
        var open = ConnectionCloseMachine(webSocket: true, tls: true, bound: bound)
        #expect(open.peerClosedTransport(closeNotify: true) == [.sendCloseNotify, .closeSocket])
        var waiting = ConnectionCloseMachine(webSocket: true, tls: true, bound: bound)
        _ = waiting.closeLocally()
        #expect(waiting.peerClosedTransport(closeNotify: false) == [.closeSocket])
    }
}
