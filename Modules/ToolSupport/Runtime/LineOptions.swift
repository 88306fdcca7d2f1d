import AstraJSON
import SIPCore

/// Resolves the line (SIP account) a tool works with, from the three sources of TOOLS.md in
/// order of precedence: line flags > `--line FILE` (`-` = standard input) > standard input
/// when it is not a terminal (docs/line.md "Giving a line to a tool").
///
/// ```swift
/// let line = try LineOptions.resolve(context.arguments)   // a validated SIPCore.Line
/// ```
/// Flags are laid field by field over the JSON line, so `--expires 60` changes one field of a
/// line read from a file. A positional `sip:`/`sips:` address of record stands for `--user` +
/// `--domain` (and `sips:` for `--transport tls`, a port for `--server`), explicit flags win.
/// Standard input is read implicitly only when no `--line` is given, it is not a terminal, and
/// the flags do not already name both user and domain. An invalid line is a usage error (64).
public enum LineOptions {
    /// Where the line's base JSON object came from (for diagnostics).
    public enum Source: Sendable, Equatable {
        case flagsOnly
        case file(String)
        case standardInput
    }

    /// The resolved, validated line and how many further lines the input held (ignored).
    public struct Resolved: Sendable {
        public var line: Line
        public var source: Source
        public var ignoredLines: Int
    }

    /// The validated line of `arguments`; see ``resolveDetailed(_:addressOfRecordKey:standardInputIsTerminal:readInput:)``.
    public static func resolve(
        _ arguments: ParsedArguments, addressOfRecordKey: String = "aor",
        standardInputIsTerminal: Bool = InputReader.standardInputIsTerminal
    ) throws(ToolError) -> Line {
        try resolveDetailed(
            arguments, addressOfRecordKey: addressOfRecordKey,
            standardInputIsTerminal: standardInputIsTerminal
        ).line
    }

    /// The line with where it came from; `readInput` reads a path (`nil`/`-` = standard input).
    public static func resolveDetailed(
        _ arguments: ParsedArguments, addressOfRecordKey: String = "aor",
        standardInputIsTerminal: Bool = InputReader.standardInputIsTerminal,
        readInput: (String?) throws(ToolError) -> [UInt8] = { path throws(ToolError) in
            try InputReader.read(path, limit: .line)
        }
    ) throws(ToolError) -> Resolved {
        var flags = try LineFlags(arguments, addressOfRecordKey: addressOfRecordKey)
        var aor: LineAddressOfRecord?
        if let text = arguments.string(addressOfRecordKey) {
            do {
                aor = try LineAddressOfRecord(parsing: text)
            } catch {
                throw .usage("argument <\(addressOfRecordKey)>: \(error.detail)")
            }
            // The AOR's host without its port (the port goes to server, below).
            flags.user = arguments.string(CommonOptions.Key.user) ?? aor?.user
            flags.domain = arguments.string(CommonOptions.Key.domain) ?? aor?.domain
        }
        var base = JSONObject()
        var source = Source.flagsOnly
        var ignored = 0
        if let file = flags.lineFile {
            let name = InputReader.isStandardInput(file) ? "standard input" : "'\(file)'"
            (base, ignored) = try parseLines(try readInput(file), name: name)
            source = InputReader.isStandardInput(file) ? .standardInput : .file(file)
        } else if !standardInputIsTerminal, flags.user == nil || flags.domain == nil {
            let bytes = try readInput(nil)
            if !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                (base, ignored) = try parseLines(bytes, name: "standard input")
                source = .standardInput
            }
        }
        var members = base
        func set(_ key: String, _ value: JSONValue?) {
            guard let value else { return }
            members[key] = nil
            members.append(key, value)
        }
        if let aor {
            if flags.transport == nil, aor.secure || aor.transport != nil {
                let transport = aor.secure ? (aor.transport ?? .tls).secured : aor.transport!
                set("transport", .string(transport.rawValue))
            }
            if flags.server == nil, let port = aor.port {
                set("server", .string(LineServer(host: aor.domain, port: port).description))
            }
        }
        set("display_name", flags.displayName.map(JSONValue.string))
        set("user", flags.user.map(JSONValue.string))
        set("auth_user", flags.authUser.map(JSONValue.string))
        if let password = flags.password {
            members["password_sealed"] = nil
            set("password", .string(password))
        }
        set("domain", flags.domain.map(JSONValue.string))
        set("server", flags.server.map(JSONValue.string))
        set("transport", flags.transport.map(JSONValue.string))
        set("ws_path", flags.wsPath.map(JSONValue.string))
        set("expires", flags.expires.map(JSONValue.int))
        set("ca_file", flags.caFile.map(JSONValue.string))
        if members.isEmpty {
            throw .usage("no line given: pass sip:USER@DOMAIN, --user and --domain, or --line FILE")
        }
        do {
            return Resolved(line: try Line(jsonValue: .object(members)), source: source, ignoredLines: ignored)
        } catch {
            throw .usage(error.description)
        }
    }

    /// The first line object of JSON text: one (possibly pretty-printed) object, or JSON Lines
    /// of which the first is used and the rest counted. A member named twice is a usage error
    /// naming it (`JSONParser.Limits.uniqueKeys`), whichever form the text has.
    static func parseLines(_ bytes: [UInt8], name: String) throws(ToolError) -> (JSONObject, Int) {
        do {
            if case .object(let members) = try JSONValue.parse(bytes, limits: .uniqueKeys) { return (members, 0) }
        } catch where error.code == .duplicateKey {
            throw .usage("\(name): \(error)")
        } catch {
            // Not one value: JSON Lines, read row by row below.
        }
        let rows = bytes.split(separator: 0x0A).filter { row in
            !row.allSatisfy { $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }
        }
        guard let first = rows.first else { throw ToolError(.unreadableInput, "\(name) holds no line") }
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(first, limits: .uniqueKeys)
        } catch where error.code == .duplicateKey {
            throw .usage("\(name): line: \(error)")
        } catch {
            throw ToolError(.unreadableInput, "\(name): line: \(error)")
        }
        guard case .object(let members) = parsed else {
            throw ToolError(.unreadableInput, "\(name): a line must be a JSON object")
        }
        return (members, rows.count - 1)
    }
}
