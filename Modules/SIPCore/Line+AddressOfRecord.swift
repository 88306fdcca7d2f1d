/// Building a line from a positional `sip:USER@DOMAIN` (TOOLS.md: it stands for `--user` +
/// `--domain`) or from a plain `sip:`/`sips:` QR code.
extension Line {
    /// A line from an address of record: `sips:` means TLS, `;transport=` wins, a port becomes
    /// the server (`sip:1001@pbx:5070` connects to pbx:5070). A `user:password@` part is kept.
    public init(addressOfRecord aor: LineAddressOfRecord) throws(LineError) {
        let transport = aor.transport ?? (aor.secure ? .tls : .udp)
        self.init(
            user: aor.user, password: aor.password, domain: aor.domain,
            server: aor.port.map { LineServer(host: aor.domain, port: $0) }, transport: transport)
        try validate()
    }

    /// A line from `sip:…`/`sips:…` text.
    public init(addressOfRecord text: String) throws(LineError) {
        try self.init(addressOfRecord: try LineAddressOfRecord(parsing: text))
    }
}
