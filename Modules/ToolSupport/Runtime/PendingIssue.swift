/// The open issues that will implement each tool command, named in the
/// "`<command>` is not implemented yet (issue N)" error. One table: update it as issues land.
public enum PendingIssue: Sendable, CaseIterable {
    /// astra-register: one-shot/keep registration, qualify, Nagios output.
    case register
    /// astra-register: load mode over a file of lines.
    case registerLoad
    /// astra-call: dial and answer.
    case call
    /// astra-qr: encode a line as a QR code.
    case qrEncode
    /// astra-qr: decode QR images to lines.
    case qrDecode
    /// astra-qr: fetch lines from the platform API.
    case qrLines
    /// astra-pushsim: run, check and fuzz scenarios.
    case pushsim

    /// The number of the issue that implements the command.
    public var number: Int {
        switch self {
        case .register, .registerLoad: 4
        case .call: 8
        case .qrEncode, .qrDecode, .qrLines: 5
        case .pushsim: 6
        }
    }
}
