import AstraJSON

/// Reading and writing the line JSON object (docs/line.md). Field names are a stable contract.
extension Line {
    /// The JSON field names (`rawValue`); ``jsonValue(redacted:)`` writes them in schema order.
    public enum Field: String, CaseIterable, Sendable {
        case v, user, password, domain, server, transport, expires
        case displayName = "display_name"
        case authUser = "auth_user"
        case passwordSealed = "password_sealed"
        case wsPath = "ws_path"
        case outboundProxy = "outbound_proxy"
        case caFile = "ca_file"
        case tlsVerify = "tls_verify"
        case tlsServerName = "tls_server_name"
        case pushProvider = "push_provider"
        case pushToken = "push_token"
        case pushTopic = "push_topic"
    }

    /// What replaces secrets in redacted output.
    public static let redactionMarker = Redaction.placeholder

    /// Parses and validates a line from JSON text (UTF-8 bytes). Unknown fields are ignored so
    /// newer writers stay readable; a newer `v` is refused, and so is a member named twice
    /// (`JSONParser.Limits.uniqueKeys`: which of two users or two `tls_verify` counts must not
    /// be an accident of the parser).
    public init<Bytes: Collection<UInt8>>(json bytes: Bytes) throws(LineError) {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes, limits: .uniqueKeys) } catch {
            throw LineError(.invalidJSON, error.description)
        }
        try self.init(jsonValue: value)
    }

    /// Parses and validates a line from JSON text.
    public init(json text: String) throws(LineError) {
        try self.init(json: Array(text.utf8))
    }

    /// Builds and validates a line from a parsed JSON value, which must be an object.
    public init(jsonValue object: JSONValue) throws(LineError) {
        guard case .object = object else {
            throw LineError(.invalidJSON, "a line must be a JSON object, not \(object.typeName)")
        }
        func string(_ f: Field) throws(LineError) -> String? {
            switch object[f.rawValue] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            case let other?: throw LineError(.wrongType, field: f.rawValue, "expected a string, got \(other.typeName)")
            }
        }
        func integer(_ f: Field, code: LineError.Code) throws(LineError) -> Int? {
            switch object[f.rawValue] {
            case nil, .null?: return nil
            case .number(let n)?:
                guard let i = n.int else { throw LineError(code, field: f.rawValue, "\(n) is not an integer") }
                return i
            case .string(let s)?:
                guard let i = Int(s.lineTrimmed()) else {
                    throw LineError(code, field: f.rawValue, "\"\(s)\" is not an integer")
                }
                return i
            case let other?: throw LineError(.wrongType, field: f.rawValue, "expected a number, got \(other.typeName)")
            }
        }
        let version = try integer(.v, code: .unsupportedVersion) ?? Line.currentVersion
        guard version >= 1, version <= Line.currentVersion else {
            throw LineError(
                .unsupportedVersion, field: "v",
                "line version \(version) is not supported (this build reads 1…\(Line.currentVersion))")
        }
        var transport = LineTransport.udp
        if let t = try string(.transport) {
            guard let parsed = LineTransport(name: t) else {
                throw LineError(.badTransport, field: "transport", "\"\(t)\" is not one of udp, tcp, tls, ws, wss")
            }
            transport = parsed
        }
        var tlsVerify: Bool?
        switch object[Field.tlsVerify.rawValue] {
        case nil, .null?: tlsVerify = nil
        case .bool(let b)?: tlsVerify = b
        case let other?:
            throw LineError(.wrongType, field: "tls_verify", "expected true or false, got \(other.typeName)")
        }
        let server = try string(.server).map { s throws(LineError) in try LineServer(parsing: s, field: "server") }
        let proxy = try string(.outboundProxy).map { s throws(LineError) in
            try LineServer(parsing: s, field: "outbound_proxy")
        }
        self.init(
            version: version, displayName: try string(.displayName), user: try string(.user) ?? "",
            authUser: try string(.authUser), password: try string(.password),
            sealedPassword: try string(.passwordSealed), domain: try string(.domain) ?? "", server: server,
            transport: transport, wsPath: try string(.wsPath), outboundProxy: proxy,
            expires: try integer(.expires, code: .badExpires), caFile: try string(.caFile), tlsVerify: tlsVerify,
            tlsServerName: try string(.tlsServerName), pushProvider: try string(.pushProvider),
            pushToken: try string(.pushToken), pushTopic: try string(.pushTopic))
        try validate()
    }

    /// The line as a JSON object value; fields in ``Field`` order, absent ones left out.
    /// With `redacted`, `password`, `password_sealed` and `push_token` become ``redactionMarker``.
    public func jsonValue(redacted: Bool = false) -> JSONValue {
        var members: JSONObject = ["v": .int(version)]
        func add(_ f: Field, _ value: String?, secret: Bool = false) {
            guard let value else { return }
            members.append(f.rawValue, .string(secret && redacted ? Line.redactionMarker : value))
        }
        add(.displayName, displayName)
        add(.user, user)
        add(.authUser, authUser)
        add(.password, password, secret: true)
        add(.passwordSealed, sealedPassword, secret: true)
        add(.domain, domain)
        add(.server, server?.description)
        add(.transport, transport.rawValue)
        add(.wsPath, wsPath)
        add(.outboundProxy, outboundProxy?.description)
        if let expires { members.append(Field.expires.rawValue, .int(expires)) }
        add(.caFile, caFile)
        if let tlsVerify { members.append(Field.tlsVerify.rawValue, .bool(tlsVerify)) }
        add(.tlsServerName, tlsServerName)
        add(.pushProvider, pushProvider)
        add(.pushToken, pushToken, secret: true)
        add(.pushTopic, pushTopic)
        return .object(members)
    }

    /// One line of compact JSON (no trailing newline) — the form tools print and read.
    /// This contains the password in clear unless `redacted` is true: write it only to the
    /// output the user asked for, never to logs.
    public func jsonString(redacted: Bool = false) -> String {
        jsonValue(redacted: redacted).jsonText
    }
}
