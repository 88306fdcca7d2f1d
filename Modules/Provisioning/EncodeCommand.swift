import SIPCore

/// `astra-qr encode`: a line → the compact payload → a QR code in qrencode's output types.
package enum EncodeCommand {
    public struct Options: Sendable {
        public var format: QRRenderer.Format
        /// `-l`; M by default (qrencode uses L; M survives print and photos better).
        public var level: QRMatrix.Level
        /// `-s`: pixels per module for PNG/PGM/SVG (qrencode default 3).
        public var moduleSize: Int
        /// `-m`: quiet zone in modules; nil = the format's default (4 images, 2 text).
        public var margin: Int?
        /// Seal the password with this passphrase or key file.
        public var seal: SealKey?
        /// KDF for sealing; nil = scrypt for passphrases, HKDF for key files.
        public var kdf: SealKDF?

        public init(
            format: QRRenderer.Format = .png, level: QRMatrix.Level = .M, moduleSize: Int = 3,
            margin: Int? = nil, seal: SealKey? = nil, kdf: SealKDF? = nil
        ) {
            self.format = format
            self.level = level
            self.moduleSize = moduleSize
            self.margin = margin
            self.seal = seal
            self.kdf = kdf
        }
    }

    /// The encoded image and what went into it.
    public struct Output: Sendable {
        /// The file bytes (PNG, SVG, PGM or terminal text).
        public var bytes: [UInt8]
        /// The payload text in the code — holds the password unless sealed; do not log it.
        public var payload: String
        /// QR version chosen (1…40).
        public var version: Int
        /// Warnings for stderr (e.g. a password in clear).
        public var warnings: [String]
    }

    /// The warning printed when a code carries a password in clear.
    public static let clearPasswordWarning =
        "astra-qr: warning: the code holds the SIP password in clear; anyone who sees it can use the line "
        + "(seal it with --passphrase or --key-file)"

    public static func run(
        line: Line, options: Options, random: (Int) -> [UInt8] = PasswordSeal.secureRandom
    ) throws(ProvisioningError) -> Output {
        do {
            try line.validate()
        } catch {
            throw ProvisioningError(error)
        }
        // A sealed code seals its secrets; the seal covers the password only, so a push token
        // (RFC 8599 pn-prid, a secret) would ride in clear beside it: refuse instead.
        if options.seal != nil, line.pushToken != nil {
            throw ProvisioningError(
                .badOption,
                "a sealed code cannot carry push_token in clear (the seal covers the password only); "
                    + "leave the token out: the app registers its own")
        }
        let payload = try ProvisioningPayload.payload(for: line, seal: options.seal, kdf: options.kdf, random: random)
        let matrix = try QRMatrix.encode(payload, level: options.level)
        let bytes = try QRRenderer.render(
            matrix, format: options.format, moduleSize: options.moduleSize,
            margin: options.margin)
        var warnings: [String] = []
        if line.hasClearPassword, options.seal == nil { warnings.append(clearPasswordWarning) }
        let weakened = line.weakenedChecks
        if !weakened.isEmpty {
            warnings.append(
                "astra-qr: warning: the code \(Line.weakeningReasons(weakened)); "
                    + "astra-qr decode refuses it without --allow-insecure")
        }
        return Output(bytes: bytes, payload: payload, version: matrix.version, warnings: warnings)
    }
}
