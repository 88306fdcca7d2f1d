import Foundation

/// The repository's root folder, for tests that read the tree itself (docs, scripts, vectors,
/// golden files) rather than bundled resources.
///
/// Found once from this source file's compile-time path by walking up to the nearest folder
/// holding Package.swift, so it does not depend on the working directory `swift test` runs in
/// or on how deep the caller's own file sits.
public enum RepositoryRoot {
    /// The root folder (the one holding Package.swift; `/` if none was found).
    public static let url: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/"
            && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
        {
            url.deleteLastPathComponent()
        }
        return url
    }()

    /// ``url`` as a file-system path.
    public static var path: String { url.path }

    /// A file or folder under the root: `RepositoryRoot.appending("docs/man")`.
    public static func appending(_ relativePath: String) -> URL {
        url.appendingPathComponent(relativePath)
    }
}
