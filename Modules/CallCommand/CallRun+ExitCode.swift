import CallSession
import SIPDialog
import ToolSupport

extension CallRun {
    static func exitCode(for failure: RegistrationFailure) -> ExitCode {
        switch failure {
        case .timeout, .transportError: .network
        case .rejected, .authenticationFailed, .cannotAuthenticate, .invalidResponse: .failure
        }
    }

    /// How an ended call ends the run: the exit code and the message (nil for a call that went as
    /// asked). `answer --reject STATUS` asked for the call to end with that status: an incoming
    /// call can only end busy/declined/failed with our own status by our own final response
    /// (RFC 3261 §13.3.1.3), so that is success, not a failure.
    static func outcome(of reason: CallEndReason, interrupted: Bool, mode: Mode) -> (ExitCode, String?) {
        if case .answer(_, let reject?, _) = mode, Self.finalStatus(of: reason) == reject { return (.success, nil) }
        return (exitCode(for: reason, interrupted: interrupted), reason.isNormalClearing ? nil : "call ended: \(reason)")
    }

    /// The SIP status a call ended with, for the endings that have one.
    static func finalStatus(of reason: CallEndReason) -> Int? {
        switch reason {
        case .busy(let status), .declined(let status), .failed(let status, _): status
        default: nil
        }
    }

    /// 0 completed (hang-up either side, or our SIGINT after the answer); 3 network/timeout;
    /// 5 WebRTC media could not be secured (ICE/DTLS, fingerprint mismatch); 1 otherwise.
    static func exitCode(for reason: CallEndReason, interrupted: Bool) -> ExitCode {
        switch reason {
        case .localHangUp, .remoteHangUp: .success
        case .noAnswer, .timeout, .networkError, .rtpTimeout: .network
        case .busy, .declined, .cancelled, .failed: .failure
        case .mediaFailed: .mediaFailed
        }
    }
}
