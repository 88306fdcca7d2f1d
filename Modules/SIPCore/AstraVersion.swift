/// The one version of AstraSIP: what every tool prints with `--version`, the man pages' footer,
/// the default `User-Agent`/`Server` of the SIP stack (`AstraSIP/<version>`) and the newest
/// release heading of CHANGELOG.md (a test keeps the two equal). Change it here only.
public enum AstraVersion {
    /// The current release, printed as `<tool> <version>`.
    public static let current = "0.1.0"

    /// The product token of a SIP `User-Agent`/`Server` header (RFC 3261 §20.41, §20.35).
    public static func product(_ name: String = "AstraSIP") -> String { "\(name)/\(current)" }
}
