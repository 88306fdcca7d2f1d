/// Which fields of a line lower how it is protected, rather than say which line it is.
///
/// A line from outside — a QR code on a notice board, a platform API answer, standard input of a
/// pipeline — may name an account, a server and a transport: all of that shows in the line and
/// is the reader's to judge. It must not quietly change the checks that protect that account on
/// the wire (RFC 3261 §26.2.1, RFC 5922 §7: the client verifies the server's certificate against
/// the name it meant to reach). Three fields do (docs/provisioning.md "Fields that weaken TLS"):
///
/// - `tls_verify` false: no certificate check at all; a man in the middle reads every REGISTER,
///   the digest responses (crackable offline) and the SDES keys.
/// - `ca_file`: the trust anchors become a local file the line names (and reading it tells
///   whoever chose the path what is there).
/// - `tls_server_name` naming neither the domain nor the server host: a certificate for some
///   other name then passes.
///
/// Plain transports (udp, tcp, ws) are not in the list: they are which line it is, printed as
/// `transport`, and no check is turned off by naming one.
extension Line {
    /// The fields of this line that weaken its TLS checks, in schema order (empty: none).
    public var weakenedChecks: [Field] {
        var fields: [Field] = []
        if caFile != nil { fields.append(.caFile) }
        if tlsVerify == false { fields.append(.tlsVerify) }
        if let name = tlsServerName?.lowercased(), name != domain.lowercased(),
            name != effectiveServerHost.lowercased()
        {
            fields.append(.tlsServerName)
        }
        return fields
    }

    /// Why each of `fields` weakens the line, for one refusal line:
    /// `turns certificate verification off (tls_verify)`. Field names only, never a value.
    public static func weakeningReasons(_ fields: [Field]) -> String {
        let reasons = fields.map { field -> String in
            switch field {
            case .tlsVerify: "turns TLS certificate verification off (tls_verify)"
            case .caFile: "names a local file as its CA (ca_file)"
            case .tlsServerName: "verifies a name that is neither its domain nor its server (tls_server_name)"
            default: "sets \(field.rawValue)"
            }
        }
        switch reasons.count {
        case 0: return ""
        case 1: return reasons[0]
        default: return reasons.dropLast().joined(separator: ", ") + " and " + reasons.last!
        }
    }
}
