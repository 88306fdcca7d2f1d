/// What an astra-qr command produced: bytes for stdout, one-line diagnostics for stderr and
/// the exit code (TOOLS.md "astra-qr"). The tool main only writes these out.
package struct QRCommandResult: Sendable {
    /// Exit codes of astra-qr (docs/man/astra-qr.md "EXIT STATUS").
    public enum Exit: Int32, Sendable {
        /// Every image had a code and every code was a line / the command succeeded.
        case ok = 0
        /// A code was found but is not a valid line (or its sealed password did not open);
        /// for `lines`: the API answered with an error.
        case invalidLine = 1
        /// `lines`: network error or timeout.
        case network = 3
        /// `lines`: the API's TLS certificate did not verify (configuration, not an outage).
        case certificate = 6
        /// An image holds no code.
        case noCode = 4
        /// Bad arguments or unreadable input (EX_USAGE).
        case usage = 64
    }

    public var stdout: [UInt8] = []
    public var diagnostics: [String] = []
    public var exit: Exit = .ok
    /// `decode`: how many lines were printed with their password still sealed (no key given).
    public var sealedLines = 0

    public init(stdout: [UInt8] = [], diagnostics: [String] = [], exit: Exit = .ok) {
        self.stdout = stdout
        self.diagnostics = diagnostics
        self.exit = exit
    }

    /// Keeps the most severe exit: usage, then invalid line, then network, then no code.
    mutating func worsen(to other: Exit) {
        let rank: [Exit: Int] = [.ok: 0, .noCode: 1, .network: 2, .certificate: 3, .invalidLine: 4, .usage: 5]
        if rank[other]! > rank[exit]! { exit = other }
    }
}
