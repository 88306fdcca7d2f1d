import SIPCore

/// `astra-qr decode FILE…`: every QR code in every image → one line JSON per code on stdout
/// (exactly the line object of docs/line.md, one per line), or the payload text with `raw`.
package enum DecodeCommand {
    public struct Options: Sendable {
        /// Image paths; `-` reads stdin.
        public var files: [String]
        /// Print each code's payload text instead of the line (like `zbarimg --raw`).
        public var raw: Bool
        /// Opens sealed passwords; without it a sealed password stays in `password_sealed`.
        public var key: SealKey?
        /// Print each line's redacted description (for a terminal) instead of its JSON.
        public var text: Bool

        public init(files: [String], raw: Bool = false, key: SealKey? = nil, text: Bool = false) {
            self.files = files
            self.raw = raw
            self.key = key
            self.text = text
        }
    }

    /// The outcome for one code.
    public enum CodeOutcome: Sendable {
        case line(Line, ProvisioningPayload.Form)
        case raw([UInt8])
        case failed(ProvisioningError)
    }

    /// Runs the command. `read` returns a file's bytes (the tool passes a reader that maps `-`
    /// to stdin); its error text is reported as unreadable input.
    public static func run(_ options: Options, read: (String) throws -> [UInt8]) -> QRCommandResult {
        var result = QRCommandResult()
        guard !options.files.isEmpty else {
            result.diagnostics.append("astra-qr decode: no image given (usage: astra-qr decode FILE…)")
            result.exit = .usage
            return result
        }
        var keyBudget = maxSealedOpens
        for file in options.files {
            let name = file == "-" ? "stdin" : file
            let bytes: [UInt8]
            do {
                bytes = try read(file)
            } catch {
                result.diagnostics.append("astra-qr: \(name): cannot read: \(error)")
                result.worsen(to: .usage)
                continue
            }
            let outcomes: [CodeOutcome]
            do {
                outcomes = try decode(imageBytes: bytes, options: options, keyBudget: &keyBudget)
            } catch {
                result.diagnostics.append("astra-qr: \(name): \(error.detail)")
                result.worsen(to: error.code == .noCode ? .noCode : .usage)
                continue
            }
            for outcome in outcomes {
                switch outcome {
                case .raw(let payload):
                    result.stdout += payload + [0x0A]
                case .line(let line, _):
                    result.stdout += Array((options.text ? line.description : line.jsonString()).utf8) + [0x0A]
                    if line.sealedPassword != nil {
                        result.sealedLines += 1
                        result.diagnostics.append(
                            "astra-qr: \(name): warning: the password is sealed; pass --passphrase or --key-file to open it"
                        )
                    }
                case .failed(let error):
                    result.diagnostics.append("astra-qr: \(name): \(error.detail)")
                    result.worsen(to: .invalidLine)
                }
            }
        }
        return result
    }

    /// Codes read from one image at most: one image can hold many, and each sealed one costs a
    /// key derivation.
    public static let maxCodesPerImage = 16
    /// Sealed codes opened with the key in one run at most (each is a bounded but real scrypt or
    /// PBKDF2 derivation, docs/provisioning.md "Cost bounds"); later ones stay sealed.
    public static let maxSealedOpens = 8

    /// Decodes one image's bytes: throws when the bytes are not an image, hold no code or more
    /// than ``maxCodesPerImage``; otherwise one outcome per code found. Each sealed code opened
    /// with the key takes one from `keyBudget`.
    public static func decode(
        imageBytes: [UInt8], options: Options, keyBudget: inout Int
    ) throws(ProvisioningError) -> [CodeOutcome] {
        let image = try ImageReader.decode(imageBytes)
        let codes = try QRScanner.scan(image)
        guard !codes.isEmpty else { throw ProvisioningError(.noCode, "no QR code found in the image") }
        guard codes.count <= maxCodesPerImage else {
            throw ProvisioningError(.tooLarge, "the image holds \(codes.count) codes, more than \(maxCodesPerImage)")
        }
        return codes.map { code in
            if options.raw { return .raw(code) }
            var key = options.key
            if key != nil, code.contains(sealedMarker) {
                if keyBudget > 0 { keyBudget -= 1 } else { key = nil }
            }
            return outcome(of: code, key: key)
        }
    }

    /// `$s1$`: how every sealed password starts (``PasswordSeal/prefix``), as bytes.
    static let sealedMarker = Array(PasswordSeal.prefix.utf8)

    /// ``decode(imageBytes:options:keyBudget:)`` with a fresh budget.
    public static func decode(imageBytes: [UInt8], options: Options) throws(ProvisioningError) -> [CodeOutcome] {
        var budget = maxSealedOpens
        return try decode(imageBytes: imageBytes, options: options, keyBudget: &budget)
    }

    static func outcome(of bytes: [UInt8], key: SealKey?) -> CodeOutcome {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failed(ProvisioningError(.notALine, "the code holds binary data, not a line"))
        }
        do throws(ProvisioningError) {
            let (line, form) = try ProvisioningPayload.line(from: text, key: key)
            return .line(line, form)
        } catch {
            return .failed(error)
        }
    }
}
