/// The one version string every AstraSIP tool reports with `--version`.
public enum AstraVersion {
    /// The current release, printed as `<tool> <version>`.
    public static let current = "0.1.0"
}
