import SIPCore
import SIPDialog
import SIPTransport
import Testing

@testable import LineRunner

/// The monitor's line health in virtual time (`now` is given): pings every interval while the
/// flow is up, each bounded by its timeout; a failed ping marks the line down and not
/// registered and tells the registration its flow failed (RFC 5626 §4.4.1) once; the next
/// answer brings it back; a dead flow counts its cause and stops the pings.
@Suite struct LineHealthTests {
    static let settings = LineHealth.Settings(pingInterval: .seconds(2), pingTimeout: .seconds(1))
    static let refused = TransportError(.connectFailed, transport: .tls, peer: "127.0.0.1:5061", "connect(): Connection refused")

    /// A line that connected, pinged once (answered) and registered.
    static func healthy() -> LineHealth {
        var health = LineHealth(settings: settings)
        _ = health.flowUp(certificateNotAfter: 1_800_000_000, now: .zero)
        _ = health.registering(attempt: 1, now: .milliseconds(1))
        _ = health.pingAnswered(id: 1, status: 200, now: .milliseconds(3))
        _ = health.registered(now: .milliseconds(5))
        return health
    }

    @Test func flowUpPingsAtOnceAndEveryInterval() {
        var health = LineHealth(settings: Self.settings)
        #expect(!health.up && !health.registered)
        #expect(
            health.flowUp(certificateNotAfter: nil, now: .zero)
                == [.schedulePing(after: .seconds(2)), .sendPing(id: 1), .schedulePingTimeout(id: 1, after: .seconds(1))])
        #expect(!health.up, "up only once the registrar answered")
        #expect(health.pingAnswered(id: 1, status: 200, now: .milliseconds(4)) == [.cancelPingTimeout, .observeOptions(.milliseconds(4))])
        #expect(health.up)
        #expect(
            health.pingDue(now: .seconds(2))
                == [.schedulePing(after: .seconds(2)), .sendPing(id: 2), .schedulePingTimeout(id: 2, after: .seconds(1))])
    }

    @Test func registrationRoundIsTimedFromItsFirstRequest() {
        var health = LineHealth(settings: Self.settings)
        _ = health.flowUp(certificateNotAfter: nil, now: .zero)
        _ = health.registering(attempt: 1, now: .milliseconds(10))
        _ = health.registering(attempt: 2, now: .milliseconds(12))  // the answer to the 401
        #expect(health.registered(now: .milliseconds(15)) == [.observeRegister(.milliseconds(5))])
        #expect(health.registered)
        // A refresh is a round of its own.
        _ = health.registering(attempt: 1, now: .seconds(50))
        #expect(health.registered, "the binding holds while its refresh is in flight")
        #expect(health.registered(now: .seconds(50) + .milliseconds(2)) == [.observeRegister(.milliseconds(2))])
    }

    @Test func aPingTimeoutMarksTheLineDownOnceAndRecoversOnTheNextAnswer() {
        var health = Self.healthy()
        #expect(health.up && health.registered)
        _ = health.pingDue(now: .seconds(2))
        #expect(health.pingTimedOut(id: 2, now: .seconds(3)) == [.failure(.timeout), .keepAliveFailed])
        #expect(!health.up && !health.registered)
        // Still failing: counted again, the registration is not told twice.
        _ = health.pingDue(now: .seconds(4))
        #expect(health.pingTimedOut(id: 3, now: .seconds(5)) == [.failure(.timeout)])
        // A late answer to the ping that timed out changes nothing.
        #expect(health.pingAnswered(id: 3, status: 200, now: .seconds(5) + .milliseconds(1)).isEmpty)
        _ = health.pingDue(now: .seconds(6))
        #expect(
            health.pingAnswered(id: 4, status: 200, now: .seconds(6) + .milliseconds(3))
                == [.cancelPingTimeout, .observeOptions(.milliseconds(3)), .keepAliveRecovered])
        #expect(health.up && !health.registered, "registered again only with the registrar's 2xx")
        _ = health.registering(attempt: 1, now: .seconds(6) + .milliseconds(4))
        _ = health.registered(now: .seconds(6) + .milliseconds(6))
        #expect(health.up && health.registered)
    }

    @Test func aServerErrorAnswerIsAFailureAndATransportEndIsClosed() {
        var health = Self.healthy()
        _ = health.pingDue(now: .seconds(2))
        #expect(
            health.pingAnswered(id: 2, status: 503, now: .seconds(2) + .milliseconds(1))
                == [.cancelPingTimeout, .observeOptions(.milliseconds(1)), .failure(.serverError), .keepAliveFailed])
        _ = health.pingDue(now: .seconds(4))
        #expect(health.pingFailed(id: 3, .transportError, now: .seconds(4)) == [.cancelPingTimeout, .failure(.closed)])
        _ = health.pingDue(now: .seconds(6))
        // 404 or 405 still prove the server is there.
        #expect(health.pingAnswered(id: 4, status: 405, now: .seconds(6)).contains(.keepAliveRecovered))
        #expect(health.up)
    }

    @Test func aPingStillOutIsNotDoubled() {
        var health = LineHealth(settings: LineHealth.Settings(pingInterval: .seconds(1), pingTimeout: .seconds(5)))
        _ = health.flowUp(certificateNotAfter: nil, now: .zero)
        #expect(health.pingDue(now: .seconds(1)) == [.schedulePing(after: .seconds(1))])
    }

    @Test func aDeadFlowCountsItsCauseStopsPingingAndKeepsTheCertificate() {
        var health = Self.healthy()
        #expect(health.flowDown(Self.refused, now: .seconds(1)) == [.cancelPings, .failure(.refused)])
        #expect(!health.up && !health.registered)
        #expect(health.certificateNotAfter == 1_800_000_000)
        #expect(health.pingDue(now: .seconds(2)).isEmpty, "no ping without a flow")
        // Each failed reconnect attempt counts; no timers to cancel.
        #expect(health.flowDown(Self.refused, now: .seconds(3)) == [.failure(.refused)])
        // The answer to a ping sent before the flow died is stale.
        #expect(health.pingAnswered(id: 1, status: 200, now: .seconds(3)).isEmpty)
        // Reconnected: pings again with a fresh id, a new certificate replaces the old.
        #expect(health.flowUp(certificateNotAfter: 1_900_000_000, now: .seconds(4)).contains(.sendPing(id: 2)))
        #expect(health.certificateNotAfter == 1_900_000_000)
    }

    @Test func aRegistrationFailureCountsItsCause() {
        var health = Self.healthy()
        #expect(health.registrationFailed(.authenticationFailed(status: 401, reason: "Unauthorized"), now: .seconds(1)) == [.failure(.auth)])
        #expect(!health.registered && health.up)
        #expect(health.registrationFailed(.rejected(status: 503, reason: "Busy"), now: .seconds(2)) == [.failure(.serverError)])
        #expect(health.registrationLostFlow(now: .seconds(3)).isEmpty)
    }

    @Test func causesFromWhatTheStackReports() {
        let cases: [(TransportError.Code, FailureCause)] = [
            (.resolutionFailed, .dns), (.connectFailed, .refused), (.connectTimeout, .timeout),
            (.keepAliveTimeout, .timeout), (.tlsHandshakeFailed, .tlsHandshake),
            (.certificateVerificationFailed, .tlsVerify), (.webSocketHandshakeFailed, .websocket),
            (.subprotocolRefused, .websocket), (.peerClosed, .closed), (.sendFailed, .closed),
            (.protocolViolation, .protocolError),
        ]
        for (code, cause) in cases { #expect(FailureCause(TransportError(code, "x")) == cause, "\(code)") }
        #expect(FailureCause(.cannotAuthenticate(status: 401, reason: "", detail: "no password")) == .auth)
        #expect(FailureCause(.rejected(status: 403, reason: "Forbidden")) == .auth)
        #expect(FailureCause(.rejected(status: 404, reason: "Not Found")) == .rejected)
        #expect(FailureCause(.rejected(status: 600, reason: "Busy Everywhere")) == .serverError)
        #expect(FailureCause(RegistrationFailure.timeout) == .timeout)
        #expect(FailureCause(status: 200) == nil)
        #expect(FailureCause(TransactionEnd.timeout) == .timeout)
        #expect(Set(FailureCause.allCases.map(\.rawValue)).isSuperset(of: [
            "timeout", "refused", "auth", "tls_verify", "tls_handshake", "dns", "closed", "server_error",
        ]))
    }
}
