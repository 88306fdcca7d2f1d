/// The open issues that will implement each tool command, named in the
/// "`<command>` is not implemented yet (issue N)" error. One table: update it as issues land.
public enum PendingIssue: String, Sendable, CaseIterable {
    /// astra-register: one-shot/keep registration, qualify, Nagios output.
    case register = "astra-register"
    /// astra-register: load mode over a file of lines.
    case registerLoad = "astra-register-load"
    /// astra-call: dial and answer.
    case call = "astra-call"
    /// astra-qr: encode a line as a QR code.
    case qrEncode = "astra-qr-encode"
    /// astra-qr: decode QR images to lines.
    case qrDecode = "astra-qr-decode"
    /// astra-qr: fetch lines from the platform API.
    case qrLines = "astra-qr-lines"
    /// astra-pushsim: run, check and fuzz scenarios.
    case pushsim = "astra-pushsim"
}
