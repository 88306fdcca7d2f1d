/// TLS client settings (RFC 3261 §26.2.1, RFC 5630): TLS 1.2 or newer, SNI, certificate chain
/// and host-name verification — **on by default**.
public struct TLSOptions: Sendable, Hashable {
    /// PEM file of trusted CAs (a line's `ca_file`); nil uses the system trust store.
    public var caFile: String?
    /// The name to verify and send as SNI; nil uses the host being connected to. A literal IP
    /// is matched against the certificate's IP SANs and not sent as SNI (RFC 6066 §3).
    public var serverName: String?
    /// False only through ``insecure()``: then any certificate is accepted and a
    /// warning is logged on every connection.
    public private(set) var verifyPeer: Bool

    public init(caFile: String? = nil, serverName: String? = nil) {
        self.caFile = caFile
        self.serverName = serverName
        verifyPeer = true
    }

    /// The explicit insecure switch: no chain or host-name check. Logs a warning per connection.
    public static func insecure() -> TLSOptions {
        var options = TLSOptions()
        options.verifyPeer = false
        return options
    }
}
