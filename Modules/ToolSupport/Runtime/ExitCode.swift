/// A process exit status. The documented values are the contract listed in `docs/tools.md`.
public struct ExitCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// 0: everything asked for was done (registered, call completed, every image had a code).
    public static let success = ExitCode(0)
    /// 1: rejected or failed (401/403/404 after auth, call failed, invalid line, rule violation).
    public static let failure = ExitCode(1)
    /// 3: network error or timeout.
    public static let network = ExitCode(3)
    /// 4: astra-qr found no code in an image.
    public static let noCodeFound = ExitCode(4)
    /// 5: astra-call's media could not be secured (WebRTC: ICE failed, DTLS failed or the
    /// peer's certificate did not match its `a=fingerprint`); the call was hung up.
    public static let mediaFailed = ExitCode(5)
    /// 6: the server's TLS certificate did not verify (chain or name): a configuration problem
    /// (give its CA with `--ca-file`), not an outage, so monitoring can tell them apart.
    public static let certificate = ExitCode(6)
    /// 64 (EX_USAGE): bad arguments or unreadable input.
    public static let usage = ExitCode(64)
    /// 70 (EX_SOFTWARE): internal error.
    public static let software = ExitCode(70)

    public var description: String { String(rawValue) }
}
