import SIPTransport
import ToolSupport

extension CaptureHub {
    /// Whether the command line asks for any capture (a run that does can take the async path
    /// only: `--hep` resolves its host there).
    public static func isRequested(_ arguments: ParsedArguments) -> Bool {
        typealias Key = CommonOptions.Key
        return [Key.sipTrace, Key.sipTraceFile, Key.pcap, Key.pcapRTPPayload, Key.hep, Key.hepID, Key.hepPasswordFile]
            .contains { arguments.wasGiven($0) }
    }

    /// The hub a SIP tool's command line asks for (`--sip-trace[=style]`, `--sip-trace-file`,
    /// `--pcap`, `--pcap-rtp-payload`, `--hep`, `--hep-id`, `--hep-password-file`), or nil
    /// when it asks for none. Usage errors name the option (exit 64); the HEP host is resolved
    /// here, before any SIP is sent.
    public static func make(_ context: ToolContext) async throws(ToolError) -> CaptureHub? {
        let arguments = context.arguments
        typealias Key = CommonOptions.Key
        var configuration = Configuration()
        if arguments.flag(Key.sipTrace) {
            let style = arguments.string(Key.sipTrace) ?? ""
            configuration.stderrStyle = style.isEmpty ? .full : TraceStyle(rawValue: style) ?? .full
        }
        configuration.color = FileDescriptorSink.standardError.isTerminal
        configuration.traceFile = arguments.string(Key.sipTraceFile)
        configuration.pcapFile = arguments.string(Key.pcap)
        configuration.rtpPayload = arguments.flag(Key.pcapRTPPayload)
        if arguments.flag(Key.pcapRTPPayload) && configuration.pcapFile == nil {
            throw .usage("--pcap-rtp-payload needs --pcap")
        }
        if let text = arguments.string(Key.hep) {
            let (host, port) = try parseHEPTarget(text)
            do {
                let addresses = try await Resolver.resolve(host: host, port: port, transport: .udp)
                guard let first = addresses.first else { throw ToolError(.usage, "--hep \(text): \(host) has no address") }
                configuration.hep = first
            } catch let error as ToolError {
                throw error
            } catch {
                throw ToolError(.usage, "--hep \(text): \(host) does not resolve (\(error))")
            }
            let id = UInt32(clamping: arguments.int(Key.hepID) ?? 2001)
            let key = try arguments.string(Key.hepPasswordFile).map { path throws(ToolError) in
                try InputReader.firstLine(path, limit: .password)
            }
            configuration.hepEncoder = HEPEncoder(captureID: id, authKey: key)
        } else {
            for key in [Key.hepID, Key.hepPasswordFile] where arguments.wasGiven(key) {
                throw .usage("--\(key) needs --hep")
            }
        }
        guard !configuration.isEmpty else { return nil }
        do { return try CaptureHub(configuration, diagnostics: context.diagnostics) } catch {
            throw ToolError(.usage, error.message)
        }
    }

    /// `HOST:PORT` or `udp:HOST:PORT` (also `[v6]:PORT`): UDP is HEP's usual transport and the
    /// only one offered, so the prefix may be left out; another scheme (tcp:, tls:…) is refused.
    static func parseHEPTarget(_ text: String) throws(ToolError) -> (host: String, port: UInt16) {
        let lowered = text.lowercased()
        if let scheme = ["tcp:", "tls:", "sctp:", "ws:", "wss:", "http:", "https:"].first(where: lowered.hasPrefix) {
            throw .usage("--hep '\(text)': HEP over \(scheme.dropLast()) is not offered: write HOST:PORT or "
                + "udp:HOST:PORT (HEP over UDP, e.g. 127.0.0.1:9060)")
        }
        let rest = lowered.hasPrefix("udp:") ? text.dropFirst(4) : Substring(text)
        guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0
        else { throw .usage("--hep '\(text)': no port (HOST:PORT, e.g. 127.0.0.1:9060)") }
        var host = String(rest[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw .usage("--hep '\(text)': no host (HOST:PORT, e.g. 127.0.0.1:9060)") }
        return (host, port)
    }
}
