// verify-line: register a SIP account with digest authentication, report, unregister
// (RFC 3261 §10.2; digest RFC 7616/8760). The password comes from a file and is never printed.
// Usage: verify-line sip:USER@DOMAIN HOST[:PORT] udp|tcp|tls|ws|wss PASSWORD_FILE [CA_FILE]
// Exit: 0 registered and unregistered, 1 the registrar refused, 3 network or no answer, 64 usage.
import FoundationEssentials
import SIPCore
import SIPDialog
import SIPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// One line on standard error (file descriptor 2: the C `stderr` global is not concurrency-safe).
func say(_ message: String) {
    let line = Array("verify-line: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String, _ code: Int32) -> Never {
    say(message)
    exit(code)
}

let arguments = CommandLine.arguments
guard (5...6).contains(arguments.count), let transport = TransportKind(rawValue: arguments[3]) else {
    fail("usage: verify-line sip:USER@DOMAIN HOST[:PORT] udp|tcp|tls|ws|wss PASSWORD_FILE [CA_FILE]", 64)
}
guard let aor = try? SIPURI(parsing: arguments[1]), let user = aor.user, let domain = aor.host,
    let registrar = try? SIPURI(parsing: "sip:\(domain)")
else { fail("not a SIP address of record: \(arguments[1])", 64) }
let server: LineServer
do { server = try LineServer(parsing: arguments[2]) } catch { fail("\(error)", 64) }
guard let data = FileManager.default.contents(atPath: arguments[4]),
    let password = String(data: data, encoding: .utf8)?.split(whereSeparator: \.isNewline).first
else { fail("cannot read a password from \(arguments[4])", 64) }

// The pieces a registration is made of: a flow (one connection, reconnecting, RFC 5626), the
// endpoint running transactions over it (§17), and the registration machine in its actor shell.
var options = ConnectionOptions()
options.log = .standardError(minimum: .warning)  // connection news (info) is for -v, not for a report
if arguments.count == 6 { options.tls = TLSOptions(caFile: arguments[5]) }
let target = FlowTarget(host: server.host, port: server.port.map(UInt16.init), transport: transport)
let endpoint = SIPEndpoint(channel: SIPFlow(target: target, options: options))
var settings = RegistrationSettings()
settings.requestedExpires = 60
let client = RegistrationClient(
    aor: aor, registrar: registrar, credentials: DigestCredentials(username: user, password: String(password)),
    settings: settings, ids: SystemIdentifierSource())
let registration = LineRegistration(endpoint: endpoint, client: client)

let clock = ContinuousClock()
let started = clock.now
let deadline = Task {
    try await clock.sleep(for: .seconds(10))
    fail("no answer from \(target) within 10 s", 3)
}
await registration.start()
var status: Int32 = 3
events: for await event in registration.events {
    switch event {
    case .registration(.challenged(let code, let algorithm)):
        print("challenged: \(code), digest \(algorithm)")
    case .registration(.registered(let result)):
        let elapsed = (clock.now - started).components
        let ms = elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
        print("registered: \(aor) for \(result.grantedExpires) s, in \(ms) ms")
        status = 0
        break events
    case .registration(.failed(let failure)):
        say("\(failure)")
        status = failure.status == nil ? 3 : 1
        break events
    case .flowDown(let error):
        say("\(error)")
        break events
    default:
        continue
    }
}
deadline.cancel()
// Unregister (Expires: 0, §10.2.2) and wait for the registrar's answer, at most 3 s.
await registration.stop(within: .seconds(3))
if status == 0 {
    let removed = await registration.state == .stopped
    print(removed ? "unregistered" : "unregister not confirmed")
    if !removed { status = 3 }
}
exit(status)
