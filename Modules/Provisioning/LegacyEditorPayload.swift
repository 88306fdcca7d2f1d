import AstraJSON
import SIPCore

/// The legacy web-editor QR: a JSON object without `v`, written before the versioned line
/// existed — `{"username":"1001","password":"…","host":"pbx.example.com:5060"}`.
///
/// `username` is the PBX endpoint id (user and auth user), `host` is `host[:port]` (or `host`
/// plus a numeric `port`), the transport is always UDP, and the domain is the host
/// (docs/provisioning.md "Legacy editor codes"). `display_name` or `name` is kept if present.
package enum LegacyEditorPayload {
    /// True when the JSON object looks like an editor code (has `username`, no `v`/`user`).
    static func matches(_ object: JSONValue) -> Bool {
        object["username"] != nil && object["v"] == nil && object["user"] == nil
    }

    public static func decode(_ object: JSONValue) throws(ProvisioningError) -> Line {
        func string(_ key: String) throws(ProvisioningError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            case .number(let n)?: return n.text
            case let other?:
                throw ProvisioningError(.notALine, "editor code field \(key) is a \(other.typeName), expected a string")
            }
        }
        let user = try string("username") ?? ""
        let host = try string("host")
        let serverField = try string("server")
        let hostText = host ?? serverField ?? ""
        let portText = try string("port")
        let displayNameField = try string("display_name")
        let nameField = try string("name")
        let displayName = displayNameField ?? nameField
        let password = try string("password")
        let domain = try string("domain")
        do throws(LineError) {
            guard !hostText.isEmpty else { throw LineError(.missingDomain, field: "host", "missing host") }
            var server = try LineServer(parsing: hostText, field: "host")
            if let portText {
                guard let port = Int(portText) else { throw LineError(.badPort, field: "port", "port is not a number") }
                guard (1...65535).contains(port) else {
                    throw LineError(.badPort, field: "port", "port \(port) out of range 1…65535")
                }
                server.port = port
            }
            let line = Line(
                displayName: displayName, user: user, password: password, domain: domain ?? server.host,
                server: server, transport: .udp)
            try line.validate()
            return line
        } catch {
            throw ProvisioningError(error)
        }
    }
}
