import Foundation

/// Keys and tokens made by tools independent of AstraSIP — the `openssl` command line and
/// scripts/mint-jwt.py (Python's stdlib + openssl) — so the JWT verifier is checked against
/// someone else's signatures, not only its own.
public struct IndependentJWT: Sendable {
    /// Scratch folder holding the keys (removed by ``remove()``).
    public let directory: URL
    /// 64 hex characters + newline (the HS256 secret file; the key is the 64 ASCII bytes).
    public var secretFile: String { directory.appendingPathComponent("hs256.secret").path }
    public var ecPrivate: String { directory.appendingPathComponent("ec.pem").path }
    public var ecPublic: String { directory.appendingPathComponent("ec.pub.pem").path }
    public var rsaPrivate: String { directory.appendingPathComponent("rsa.pem").path }
    public var rsaPublic: String { directory.appendingPathComponent("rsa.pub.pem").path }

    /// Makes an HS256 secret, a P-256 key pair and an RSA-2048 key pair with `openssl`.
    public static func make() async throws -> IndependentJWT {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "astra-jwt-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keys = IndependentJWT(directory: directory)
        for arguments in [
            ["rand", "-hex", "-out", keys.secretFile, "32"],
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keys.ecPrivate],
            ["pkey", "-in", keys.ecPrivate, "-pubout", "-out", keys.ecPublic],
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", keys.rsaPrivate],
            ["pkey", "-in", keys.rsaPrivate, "-pubout", "-out", keys.rsaPublic],
        ] {
            let result = try await ChildProcess.run(command: "openssl", arguments)
            guard result.status == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl: \(result.stderr)"])
            }
        }
        return keys
    }

    /// A token signed by scripts/mint-jwt.py: `alg` HS256 (with ``secretFile``), RS256/ES256 (with
    /// the private key), or anything else (e.g. `none`: an empty signature). `header` replaces the
    /// default `{"alg","typ"}` when given.
    public func mint(_ alg: String, claims: String, header: String? = nil, keyFile: String? = nil) async throws
        -> String
    {
        let key = keyFile ?? (alg == "RS256" ? rsaPrivate : alg == "ES256" ? ecPrivate : secretFile)
        let script = RepositoryRoot.appending("scripts/mint-jwt.py").path
        let result = try await ChildProcess.run(
            command: "python3", [script, alg, key, claims] + (header.map { [$0] } ?? []))
        guard result.status == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "mint-jwt.py: \(result.stderr)"])
        }
        return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func remove() { try? FileManager.default.removeItem(at: directory) }
}
