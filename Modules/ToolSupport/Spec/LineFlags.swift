import AstraJSON

/// The line (SIP account) fields given on the command line: the highest-precedence layer of
/// "flags > `--line FILE` > standard input" (TOOLS.md).
///
/// Reads `--password-file` and splits the positional address of record (`sip:USER@DOMAIN`)
/// into user and domain; explicit `--user`/`--domain` win over the address of record.
/// ``overrides`` uses the line JSON field names, so it can be laid over a line object.
public struct LineFlags: Sendable, Equatable {
    public var user: String?
    public var authUser: String?
    public var password: String?
    public var domain: String?
    public var server: String?
    public var transport: String?
    public var wsPath: String?
    public var caFile: String?
    public var expires: Int?
    public var displayName: String?
    /// `--line FILE` (`-` = standard input), for the next layer down.
    public var lineFile: String?

    public init() {}

    /// The line flags of `arguments`; the address of record is read from the argument `aor`.
    public init(_ arguments: ParsedArguments, addressOfRecordKey: String = "aor") throws(ToolError) {
        typealias Key = CommonOptions.Key
        if let aor = arguments.string(addressOfRecordKey) {
            let (user, domain) = try Self.splitAddressOfRecord(aor)
            self.user = user
            self.domain = domain
        }
        if let user = arguments.string(Key.user) { self.user = user }
        if let domain = arguments.string(Key.domain) { self.domain = domain }
        authUser = arguments.string(Key.authUser)
        server = arguments.string(Key.server)
        transport = arguments.string(Key.transport)
        wsPath = arguments.string(Key.wsPath)
        caFile = arguments.string(Key.caFile)
        expires = arguments.int(Key.expires)
        displayName = arguments.string(Key.displayName)
        lineFile = arguments.string(Key.line)
        password = arguments.string(Key.password)
        if let file = arguments.string(Key.passwordFile) {
            guard password == nil else { throw .usage("use either --password or --password-file, not both") }
            if InputReader.isStandardInput(file) && lineFile.map(InputReader.isStandardInput) == true {
                throw .usage("--password-file and --line cannot both read standard input")
            }
            password = try InputReader.firstLine(file, limit: .password)
        }
    }

    /// The given fields under their line JSON names (`auth_user`, `ws_path`, …), in schema order.
    public var overrides: JSONObject {
        var object = JSONObject()
        object["display_name"] = displayName.map(JSONValue.string)
        object["user"] = user.map(JSONValue.string)
        object["auth_user"] = authUser.map(JSONValue.string)
        object["password"] = password.map(JSONValue.string)
        object["domain"] = domain.map(JSONValue.string)
        object["server"] = server.map(JSONValue.string)
        object["transport"] = transport.map(JSONValue.string)
        object["ws_path"] = wsPath.map(JSONValue.string)
        object["expires"] = expires.map(JSONValue.int)
        object["ca_file"] = caFile.map(JSONValue.string)
        return object
    }

    /// `sip:alice@pbx.example.com` → ("alice", "pbx.example.com"); URI parameters are ignored.
    static func splitAddressOfRecord(_ aor: String) throws(ToolError) -> (user: String, domain: String) {
        let lower = aor.lowercased()
        let scheme = lower.hasPrefix("sips:") ? 5 : (lower.hasPrefix("sip:") ? 4 : 0)
        let rest = aor.dropFirst(scheme).prefix { $0 != ";" && $0 != "?" && $0 != ">" }
        let parts = rest.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard scheme > 0, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !parts[0].contains(":") else {
            throw .usage("argument <aor>: expected sip:USER@DOMAIN or sips:USER@DOMAIN, got '\(aor)'")
        }
        return (String(parts[0]), String(parts[1]))
    }
}
