import Testing

@testable import SIPCore

/// A line read from outside: a member named twice is refused, and the fields that weaken TLS
/// (``Line/weakenedChecks``) are the three docs/provisioning.md lists.
@Suite struct LineTrustTests {
    @Test func aLineNamingAMemberTwiceIsRefused() {
        #expect {
            try Line(json: #"{"v":1,"user":"1001","domain":"example.com","user":"1002"}"#)
        } throws: { error in
            guard let error = error as? LineError else { return false }
            return error.code == .invalidJSON && error.description.contains(#"member "user" given twice"#)
        }
    }

    @Test(arguments: [
        (#"{"user":"1","domain":"d.example","transport":"tls"}"#, [Line.Field]()),
        (#"{"user":"1","domain":"d.example","tls_verify":true}"#, []),
        (#"{"user":"1","domain":"d.example","tls_verify":false}"#, [.tlsVerify]),
        (#"{"user":"1","domain":"d.example","ca_file":"/etc/shadow"}"#, [.caFile]),
        (#"{"user":"1","domain":"d.example","tls_server_name":"evil.example"}"#, [.tlsServerName]),
        // The name of the domain or of the server is what would be verified anyway.
        (#"{"user":"1","domain":"d.example","server":"10.0.0.5","tls_server_name":"D.example"}"#, []),
        (#"{"user":"1","domain":"d.example","server":"pbx.d.example:5061","tls_server_name":"pbx.d.example"}"#, []),
        (#"{"user":"1","domain":"d.example","ca_file":"/x","tls_verify":false,"tls_server_name":"e.example"}"#,
         [.caFile, .tlsVerify, .tlsServerName]),
    ])
    func weakenedChecks(_ json: String, _ expected: [Line.Field]) throws {
        #expect(try Line(json: json).weakenedChecks == expected)
    }

    @Test func reasonsNameFieldsOnly() {
        #expect(Line.weakeningReasons([.tlsVerify]) == "turns TLS certificate verification off (tls_verify)")
        #expect(
            Line.weakeningReasons([.caFile, .tlsVerify, .tlsServerName])
                == "names a local file as its CA (ca_file), turns TLS certificate verification off (tls_verify) "
                + "and verifies a name that is neither its domain nor its server (tls_server_name)")
    }
}
