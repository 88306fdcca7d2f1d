// call-and-record: register, place a call, record the far end's audio to a WAV file, hang up
// (RFC 3261 §13 INVITE, §15 BYE; G.711 over RTP, RFC 3550/3551). The password comes from a file.
// Usage: call-and-record sip:USER@DOMAIN HOST[:PORT] udp|tcp|ws PASSWORD_FILE sip:CALLEE OUT.wav [SECONDS]
// Exit: 0 the call was answered and recorded, 1 refused or failed, 3 network or no answer, 64 usage.
import CallSession
import FoundationEssentials
import Media
import SIPCore
import SIPDialog
import SIPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// One line on standard error (file descriptor 2: the C `stderr` global is not concurrency-safe).
func say(_ message: String) {
    let line = Array("call-and-record: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String, _ code: Int32) -> Never {
    say(message)
    exit(code)
}

let arguments = CommandLine.arguments
guard (7...8).contains(arguments.count), let transport = TransportKind(rawValue: arguments[3]),
    let aor = try? SIPURI(parsing: arguments[1]), let user = aor.user, let domain = aor.host,
    let callee = try? SIPURI(parsing: arguments[5]), let server = try? LineServer(parsing: arguments[2]),
    let seconds = arguments.count == 8 ? Int(arguments[7]) : 3, (1...3600).contains(seconds)
else { fail("usage: call-and-record sip:USER@DOMAIN HOST[:PORT] udp|tcp|ws PASSWORD_FILE sip:CALLEE OUT.wav [SECONDS]", 64) }
guard let data = FileManager.default.contents(atPath: arguments[4]),
    let password = String(data: data, encoding: .utf8)?.split(whereSeparator: \.isNewline).first
else { fail("cannot read a password from \(arguments[4])", 64) }
let credentials = DigestCredentials(username: user, password: String(password))

// Registration as in verify-line; `calls:` routes the endpoint's call traffic to us.
let clock = ContinuousClock()
let target = FlowTarget(host: server.host, port: server.port.map(UInt16.init), transport: transport)
var options = ConnectionOptions()
options.log = .standardError(minimum: .warning)
let endpoint = SIPEndpoint(channel: SIPFlow(target: target, options: options))
guard let registrar = try? SIPURI(parsing: "sip:\(domain)") else { fail("no registrar for \(aor)", 64) }
let client = RegistrationClient(aor: aor, registrar: registrar, credentials: credentials, ids: SystemIdentifierSource())
let (callTraffic, calls) = AsyncStream.makeStream(of: EndpointEvent.self)
let registration = LineRegistration(endpoint: endpoint, client: client, calls: calls)
let deadline = Task {
    try await clock.sleep(for: .seconds(15 + seconds))
    fail("no answer within \(15 + seconds) s", 3)
}
await registration.start()
for await event in registration.events {
    if case .registration(.registered) = event { break }
    if case .registration(.failed(let failure)) = event { fail("\(failure)", failure.status == nil ? 3 : 1) }
    if case .flowDown(let error) = event { fail("\(error)", 3) }
}
guard let binding = await endpoint.binding else { fail("no local binding", 3) }

// The call: an SDP offer from a freshly bound RTP socket; what the far end sends is decoded
// (G.711, jitter buffer) into the recording sink, 8 kHz mono.
let recording = RecordingSink()
let call: Call<ContinuousClock>
do {
    call = try Call(
        calling: callee, from: SIPNameAddress(uri: aor), endpoint: endpoint, binding: binding,
        credentials: credentials, sink: recording, clock: clock)
} catch {
    fail("\(error)", 1)
}
let pump = Task { for await event in callTraffic { await call.handle(event) } }
await call.start()
var status: Int32 = 1
events: for await event in call.events {
    switch event {
    case .answered(let codec, _, _, _):
        print("answered: \(codec); recording \(seconds) s")
        Task {
            try await clock.sleep(for: .seconds(seconds))
            await call.hangUp()
        }
    case .ended(let reason, let statistics):
        print("ended: \(reason), \(statistics.packetsReceived) RTP packets received")
        if reason == .localHangUp { status = 0 } else if reason == .timeout || reason == .networkError { status = 3 }
        break events
    default:
        continue
    }
}
deadline.cancel()
_ = await call.settle(within: .seconds(2))
pump.cancel()
await registration.stop(within: .seconds(3))
do {
    try WAVFile(sampleRate: 8000, samples: recording.samples).write(path: arguments[6])
} catch {
    fail("\(arguments[6]): \(error)", 1)
}
print("wrote \(arguments[6]): \(recording.samples.count / 8) ms of audio")
exit(status)
