import Glibc
import Provisioning
import SIPCore
import ToolSupport

/// Glue between astra-qr's parsed flags (ToolSupport) and the Provisioning commands:
/// options in, bytes and one-line diagnostics out, exit codes as documented.
enum QRTool {
    static func encode(_ context: ToolContext) throws -> ExitCode {
        let args = context.arguments
        let resolved = try LineOptions.resolveDetailed(args)
        if resolved.ignoredLines > 0 {
            context.diagnostics.warning("input holds \(resolved.ignoredLines + 1) lines; encoding the first")
        }
        let output = args.string("output") ?? "-"
        let toTerminal = output == "-" && isatty(1) == 1
        let format: QRRenderer.Format
        if let name = args.string("type") {
            guard let chosen = QRRenderer.Format(name: name) else { throw ToolError.usage("option -t: bad type") }
            format = chosen
        } else {
            format = toTerminal ? .utf8 : .png
        }
        var options = EncodeCommand.Options(format: format)
        options.level = QRMatrix.Level(letter: args.string("level") ?? "M") ?? .M
        options.moduleSize = args.int("size") ?? 3
        options.margin = args.int("margin")
        options.seal = try sealKey(args)
        if args.string("kdf") == "pbkdf2" { options.kdf = .pbkdf2SHA256(iterations: 600_000) }
        if options.kdf != nil, case .keyFile? = options.seal {
            throw ToolError.usage("--kdf applies to --passphrase, not --key-file")
        }
        let result: EncodeCommand.Output
        do {
            result = try EncodeCommand.run(line: resolved.line, options: options)
        } catch {
            throw toolError(error)
        }
        for warning in result.warnings { report(warning, context) }
        try write(result.bytes, to: output)
        context.diagnostics.info(
            "QR version \(result.version), level \(options.level.rawValue), \(result.bytes.count) bytes")
        return .success
    }

    static func decode(_ context: ToolContext) throws -> ExitCode {
        let args = context.arguments
        var options = DecodeCommand.Options(
            files: args.strings("file"), raw: args.flag("raw"),
            key: try sealKey(args), allowInsecure: args.flag("allow-insecure"))
        options.text = context.output.format == .text && !options.raw
        let read: (String) throws -> [UInt8] = { path in
            do throws(ToolError) {
                return try InputReader.read(path, limit: .image)
            } catch {
                // "cannot read 'x': reason" → "reason" (DecodeCommand names the file).
                let message = error.message
                let reason = message.firstRange(of: "': ").map { String(message[$0.upperBound...]) }
                throw ReadFailure(reason: reason ?? message)
            }
        }
        var result = DecodeCommand.run(options, read: read)
        // A sealed code and no key: on a terminal, ask for the passphrase (echo off) and decode again.
        if result.sealedLines > 0, options.key == nil, !options.files.contains("-"), isatty(0) == 1,
            let entered = getpass("astra-qr: passphrase for the sealed code: "), entered.pointee != 0
        {
            options.key = .passphrase(String(cString: entered))
            result = DecodeCommand.run(options, read: read)
        }
        return finish(result, context)
    }

    static func lines(_ context: ToolContext) async throws -> ExitCode {
        let args = context.arguments
        guard let api = args.string("api") else { throw ToolError.usage("missing option --api URL") }
        guard let tokenFile = args.string("firebase-token-file") else {
            throw ToolError.usage("missing option --firebase-token-file FILE")
        }
        let token = try InputReader.firstLine(tokenFile, limit: .token)
        guard !token.isEmpty else { throw ToolError(.unreadableInput, "the Firebase token file is empty") }
        let timeout = args.duration("timeout") ?? .seconds(10)  // 0.001…300 s (the spec's range)
        let client: PlatformClient
        do {
            client = try PlatformClient(
                baseURL: api, firebaseToken: token,
                transport: CurlHTTPTransport(timeoutMilliseconds: Int(max(1, timeout.wholeMilliseconds))),
                store: args.string("token-cache").map { FileSessionStore(path: $0) })
        } catch {
            throw ToolError.usage("option --api: \(error.detail)")
        }
        return finish(await LinesCommand.run(client: client, allowInsecure: args.flag("allow-insecure")), context)
    }

    // MARK: Helpers

    struct ReadFailure: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// `--passphrase`, `--passphrase-file` or `--key-file` (at most one).
    static func sealKey(_ args: ParsedArguments) throws(ToolError) -> SealKey? {
        let given = ["passphrase", "passphrase-file", "key-file"].filter { args.wasGiven($0) }
        guard given.count <= 1 else {
            throw .usage("use only one of --passphrase, --passphrase-file and --key-file")
        }
        if let text = args.string("passphrase") {
            guard !text.isEmpty else { throw .usage("option --passphrase: empty passphrase") }
            return .passphrase(text)
        }
        if let file = args.string("passphrase-file") {
            let text = try InputReader.firstLine(file, limit: .password)
            guard !text.isEmpty else { throw ToolError(.unreadableInput, "the passphrase file is empty") }
            return .passphrase(text)
        }
        if let file = args.string("key-file") {
            let bytes = try InputReader.read(file, limit: .keyFile)
            guard bytes.count >= 16 else {
                throw ToolError(.unreadableInput, "the key file must hold at least 16 bytes")
            }
            return .keyFile(bytes)
        }
        return nil
    }

    /// Writes the command's stdout, reports its diagnostics, returns its exit code.
    static func finish(_ result: QRCommandResult, _ context: ToolContext) -> ExitCode {
        if !result.stdout.isEmpty { try? write(result.stdout, to: "-") }
        for line in result.diagnostics { report(line, context) }
        return ExitCode(result.exit.rawValue)
    }

    /// Diagnostics from Provisioning start with `astra-qr: `; ToolSupport adds the prefix itself.
    static func report(_ line: String, _ context: ToolContext) {
        let prefix = "\(context.tool): "
        context.diagnostics.error(line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : line)
    }

    /// Raw bytes to a file or, for `-`, standard output. A file is created 0600 (an existing
    /// regular file is narrowed to 0600): a code holds a line, often its password.
    static func write(_ bytes: [UInt8], to path: String) throws(ToolError) {
        let fd = path == "-" ? 1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ToolError(.unreadableInput, "cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        var status = stat()
        if fd != 1, fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG { _ = fchmod(fd, 0o600) }
        defer { if fd != 1 { close(fd) } }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ToolError(.failed, "cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// The one place Provisioning errors become tool errors (exit codes in docs/man/astra-qr.md).
    static func toolError(_ error: ProvisioningError) -> ToolError {
        switch error.code {
        case .invalidLine, .badOption: ToolError(.usage, error.detail)
        case .tooLarge: ToolError(.usage, error.detail)
        case .library: ToolError(.internal, error.detail)
        default: ToolError(.failed, error.detail)
        }
    }
}
