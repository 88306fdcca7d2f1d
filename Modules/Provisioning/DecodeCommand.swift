import AstraJSON
import SIPCore

/// `astra-qr decode FILE…`: every QR code in every image → one line JSON per code on stdout
/// (exactly the line object of docs/line.md, one per line), or the payload text with `raw`.
///
/// A code is input from outside: one whose line weakens TLS (`Line.weakenedChecks`:
/// `tls_verify` false, a `ca_file`, a foreign `tls_server_name`) is refused with the reason
/// unless ``Options/allowInsecure``; then its line carries `"insecure": [fields]`.
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
        /// `--allow-insecure`: print lines that weaken TLS (a test rig's), marked `insecure`.
        public var allowInsecure: Bool

        public init(
            files: [String], raw: Bool = false, key: SealKey? = nil, text: Bool = false, allowInsecure: Bool = false
        ) {
            self.files = files
            self.raw = raw
            self.key = key
            self.text = text
            self.allowInsecure = allowInsecure
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
                    result.stdout += Array(printed(line, text: options.text).utf8) + [0x0A]
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
            if options.raw {
                // The payload as it is, unless it is a line that would weaken TLS when piped on.
                if !options.allowInsecure, case .failed(let error) = outcome(of: code, key: nil, allowInsecure: false),
                    error.code == .weakensTLS
                {
                    return .failed(error)
                }
                return .raw(code)
            }
            var key = options.key
            if key != nil, code.contains(sealedMarker) {
                if keyBudget > 0 { keyBudget -= 1 } else { key = nil }
            }
            return outcome(of: code, key: key, allowInsecure: options.allowInsecure)
        }
    }

    /// `$s1$`: how every sealed password starts (``PasswordSeal/prefix``), as bytes.
    static let sealedMarker = Array(PasswordSeal.prefix.utf8)

    /// ``decode(imageBytes:options:keyBudget:)`` with a fresh budget.
    public static func decode(imageBytes: [UInt8], options: Options) throws(ProvisioningError) -> [CodeOutcome] {
        var budget = maxSealedOpens
        return try decode(imageBytes: imageBytes, options: options, keyBudget: &budget)
    }

    static func outcome(of bytes: [UInt8], key: SealKey?, allowInsecure: Bool) -> CodeOutcome {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failed(ProvisioningError(.notALine, "the code holds binary data, not a line"))
        }
        do throws(ProvisioningError) {
            let (line, form) = try ProvisioningPayload.line(from: text, key: key)
            if !allowInsecure { try refuseWeakened(line, what: "the code") }
            return .line(line, form)
        } catch {
            return .failed(error)
        }
    }

    /// Throws ``ProvisioningError/Code/weakensTLS`` naming the fields when `line` weakens TLS.
    /// The reason names fields only: nothing of the line's values (its password) is in it.
    static func refuseWeakened(_ line: Line, what: String) throws(ProvisioningError) {
        let weakened = line.weakenedChecks
        guard !weakened.isEmpty else { return }
        throw ProvisioningError(
            .weakensTLS,
            "refused: \(what) \(Line.weakeningReasons(weakened)); pass --allow-insecure to accept it (test rigs only)")
    }

    /// The line as printed: its JSON (or redacted description), with `"insecure": [fields]`
    /// appended when it weakens TLS (only printed under `--allow-insecure`).
    static func printed(_ line: Line, text: Bool) -> String {
        let weakened = line.weakenedChecks.map(\.rawValue)
        if text { return line.description + (weakened.isEmpty ? "" : " (insecure: \(weakened.joined(separator: ", ")))") }
        guard !weakened.isEmpty, case .object(var members) = line.jsonValue() else { return line.jsonString() }
        members.append("insecure", .array(weakened.map(JSONValue.string)))
        return JSONValue.object(members).jsonText
    }
}
