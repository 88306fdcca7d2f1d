/// The command-line definitions of the AstraSIP tools (TOOLS.md), one extension per tool.
///
/// They live here rather than in `Tools/` so that help, manual and parser tests can use them.
public enum ToolSpecs {
    /// Every tool, for `scripts/gen-man.sh`-style loops and tests.
    public static var all: [CommandSpec] { [register, call, qr, pushsim, wakegw, trace, torture] }

    /// Exit statuses every tool shares.
    static let usageStatus = ExitStatusDoc(.usage, "Usage error: bad arguments or unreadable input (EX_USAGE).")
    /// The usage status of the tools that read a line: its refusals are configuration too.
    static let lineUsageStatus = ExitStatusDoc(
        .usage,
        "Usage error: bad arguments, unreadable input, or a line that is invalid, names a member twice, or has "
            + "tls_verify false without --insecure (EX_USAGE).")
    /// Certificate verification failed (tls/wss): configuration, not an outage.
    static let certificateStatus = ExitStatusDoc(
        .certificate,
        "The server's TLS certificate did not verify (chain or name): give its CA with --ca-file (or ca_file).")
    static let softwareStatus = ExitStatusDoc(
        .software, "Internal error (EX_SOFTWARE).")

    /// The other tools' manual pages.
    static func seeAlso(except name: String) -> [String] {
        ["astra-register", "astra-call", "astra-qr", "astra-pushsim", "astra-trace"].filter { $0 != name }.map { "\($0)(1)" }
    }
}
