import AstraTestSupport
import SIPCore

// bench-sip: parse + serialize throughput of SIPCore on one core, as one JSON object on stdout.
// Run: swift build -c release --product bench-sip && .build/release/bench-sip
#if canImport(Glibc)
import Glibc
#endif

let register = """
    REGISTER sip:sip.example.com SIP/2.0\r
    Via: SIP/2.0/TLS 192.0.2.10:50123;branch=z9hG4bKnashds7a8s9d;rport\r
    Max-Forwards: 70\r
    From: "Alice" <sip:alice@sip.example.com>;tag=a73kszlfl\r
    To: "Alice" <sip:alice@sip.example.com>\r
    Call-ID: 1j9FpLxk3uxtm8tn@192.0.2.10\r
    CSeq: 2 REGISTER\r
    Contact: <sip:alice@192.0.2.10:50123;transport=tls;ob>;+sip.instance="<urn:uuid:00000000-0000-1000-8000-AABBCCDDEEFF>";reg-id=1;expires=600\r
    Expires: 600\r
    Allow: INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, PRACK, REFER, NOTIFY, MESSAGE\r
    Supported: path, outbound, gruu, 100rel, replaces\r
    User-Agent: AstraSIP/0.1\r
    Content-Length: 0\r
    \r

    """
let unauthorized = """
    SIP/2.0 401 Unauthorized\r
    Via: SIP/2.0/TLS 192.0.2.10:50123;branch=z9hG4bKnashds7a8s9d;rport=50123;received=198.51.100.7\r
    From: "Alice" <sip:alice@sip.example.com>;tag=a73kszlfl\r
    To: "Alice" <sip:alice@sip.example.com>;tag=37GkEhwl6\r
    Call-ID: 1j9FpLxk3uxtm8tn@192.0.2.10\r
    CSeq: 1 REGISTER\r
    WWW-Authenticate: Digest realm="sip.example.com", nonce="ea9c8e88df84f1cec4341ae6cbe5a359", opaque="", algorithm=MD5, qop="auth"\r
    Server: ExampleProxy/5.7\r
    Content-Length: 0\r
    \r

    """
let ok = """
    SIP/2.0 200 OK\r
    Via: SIP/2.0/TLS 192.0.2.10:50123;branch=z9hG4bKnashds7a8s9e;rport=50123;received=198.51.100.7\r
    From: "Alice" <sip:alice@sip.example.com>;tag=a73kszlfl\r
    To: "Alice" <sip:alice@sip.example.com>;tag=37GkEhwl6\r
    Call-ID: 1j9FpLxk3uxtm8tn@192.0.2.10\r
    CSeq: 2 REGISTER\r
    Contact: <sip:alice@192.0.2.10:50123;transport=tls;ob>;expires=600;+sip.instance="<urn:uuid:00000000-0000-1000-8000-AABBCCDDEEFF>";reg-id=1\r
    Path: <sip:edge.example.com;lr;ob>\r
    Supported: outbound, path\r
    Date: Mon, 30 Nov 2026 06:00:00 GMT\r
    Server: ExampleProxy/5.7\r
    Content-Length: 0\r
    \r

    """
let sdp = """
    v=0\r
    o=- 4611731400430051336 2 IN IP4 127.0.0.1\r
    s=-\r
    t=0 0\r
    a=group:BUNDLE 0\r
    a=msid-semantic: WMS 7d0c3bb2-5ed8-4f8b-9d34-6e7b3bdfcf61\r
    m=audio 9 UDP/TLS/RTP/SAVPF 111 0 8 13 126\r
    c=IN IP4 0.0.0.0\r
    a=rtcp:9 IN IP4 0.0.0.0\r
    a=candidate:1467250027 1 udp 2122260223 192.0.2.10 46243 typ host generation 0 network-id 1\r
    a=ice-ufrag:Qm9o\r
    a=ice-pwd:Y5Zl9n2kF2vQ0z3M1s4t6u7w\r
    a=ice-options:trickle\r
    a=fingerprint:sha-256 49:66:12:17:0D:1C:91:AE:57:4C:C6:36:DD:D5:97:D2:7D:62:C9:9A:7F:B9:A3:F4:70:03:EB:1E:D1:8F:1B:3D\r
    a=setup:actpass\r
    a=mid:0\r
    a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r
    a=sendrecv\r
    a=msid:7d0c3bb2-5ed8-4f8b-9d34-6e7b3bdfcf61 9a8a4f5e-2a3b-4d5c-8e6f-7a8b9c0d1e2f\r
    a=rtcp-mux\r
    a=rtpmap:111 opus/48000/2\r
    a=fmtp:111 minptime=10;useinbandfec=1\r
    a=rtpmap:0 PCMU/8000\r
    a=rtpmap:8 PCMA/8000\r
    a=rtpmap:13 CN/8000\r
    a=rtpmap:126 telephone-event/8000\r
    a=ssrc:2736402919 cname:Yq3hUq8u2yFQ3JwY\r

    """
let invite = """
    INVITE sip:bob@sip.example.com SIP/2.0\r
    Via: SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bK56sdasks;rport\r
    Max-Forwards: 70\r
    Route: <sip:edge.example.com:443;transport=wss;lr>\r
    From: "Alice" <sip:alice@sip.example.com>;tag=hy67ujmk\r
    To: <sip:bob@sip.example.com>\r
    Call-ID: asidkj3ss9sm2lm0w@df7jal23ls0d.invalid\r
    CSeq: 1 INVITE\r
    Contact: <sip:alice@df7jal23ls0d.invalid;transport=ws;ob>\r
    Allow: INVITE, ACK, CANCEL, BYE, UPDATE, NOTIFY, OPTIONS\r
    Supported: outbound, ice, replaces\r
    User-Agent: AstraSIP/0.1\r
    Content-Type: application/sdp\r
    Content-Length: \(sdp.utf8.count)\r
    \r
    \(sdp)
    """

let messages: [(String, [UInt8])] = [
    ("register", Array(register.utf8)), ("401", Array(unauthorized.utf8)), ("200", Array(ok.utf8)),
    ("invite_webrtc", Array(invite.utf8)),
]

/// Keeps results alive so the optimizer cannot drop the work.
nonisolated(unsafe) var sink = 0

/// The last serialized message, kept so the optimizer must materialize every output.
nonisolated(unsafe) var lastOutput: [UInt8] = []

@inline(never)
func consume(_ bytes: [UInt8]) -> Int {
    lastOutput = bytes
    return bytes.count
}

func parseAndSerialize(_ bytes: [UInt8], typed: Bool) -> Int {
    do {
        let message = try SIPMessage(parsing: bytes)
        var n = consume(message.serialized())
        if typed {
            let headers = message.headers
            n &+= (try headers.topVia()?.branch?.utf8.count) ?? 0
            n &+= Int((try headers.cseq()?.sequence) ?? 0)
            n &+= headers.callID?.utf8.count ?? 0
        }
        return n
    } catch {
        fatalError("bench-sip: \(error)")
    }
}

/// CPU time of this thread in seconds: with 5 other engineers building on 2 shared cores, wall
/// time measures the machine's load; thread CPU time measures the code on one core.
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Messages per second over `rounds` passes of `set`, best of 5 runs: (per CPU second, per wall second).
func measure(_ set: [[UInt8]], rounds: Int, typed: Bool) -> (cpu: Double, wall: Double) {
    let clock = ContinuousClock()
    var best = (cpu: 0.0, wall: 0.0)
    for _ in 0..<5 {
        let start = clock.now
        let cpuStart = threadCPUSeconds()
        for _ in 0..<rounds {
            for bytes in set { sink &+= parseAndSerialize(bytes, typed: typed) }
        }
        let cpu = threadCPUSeconds() - cpuStart
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let count = Double(rounds * set.count)
        best = (max(best.cpu, count / cpu), max(best.wall, count / seconds))
    }
    return best
}

/// `--allocations`: heap allocations per parse+serialize, read from the LD_PRELOAD counter of
/// scripts/bench-sip-allocs.sh (`astra_malloc_count`).
func allocationReport() {
    typealias Counter = @convention(c) () -> UInt
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "astra_malloc_count") else {
        print("{\"error\":\"run under scripts/bench-sip-allocs.sh (LD_PRELOAD malloc counter)\"}")
        return
    }
    let count = unsafeBitCast(symbol, to: Counter.self)
    // The REGISTER with 30 more extension headers: allocations must not grow with the header count.
    var many = register
    many.removeLast()  // the empty line ("\r\n" is one Character)
    for n in 0..<30 { many += "X-Extension-\(n): value number \(n)\r\n" }
    many += "\r\n"
    let cases = messages + [("register_plus_30_headers", Array(many.utf8))]
    var fields = [String]()
    for (name, bytes) in cases {
        for typed in [false, true] {
            sink &+= parseAndSerialize(bytes, typed: typed)  // warm up
            let before = count()
            for _ in 0..<1000 { sink &+= parseAndSerialize(bytes, typed: typed) }
            let per = Double(count() - before) / 1000
            fields.append("\"\(name)\(typed ? "_typed" : "")_allocs\":\(per)")
        }
    }
    print(
        "{\"benchmark\":\"bench-sip-allocations\",\"unit\":\"heap allocations per message\","
            + fields.joined(separator: ",") + "}")
}

func argument(_ name: String) -> String? {
    CommandLine.arguments.firstIndex(of: name).flatMap {
        $0 + 1 < CommandLine.arguments.count ? CommandLine.arguments[$0 + 1] : nil
    }
}
let corpusDirectory = argument("--corpus") ?? SIPCorpus.repositoryDirectory

if let kind = argument("--pass") {
    guard let pass = LibreComparison.Pass(rawValue: kind), let rounds = Int(argument("--rounds") ?? "1"), rounds >= 0 else {
        let line = Array("bench-sip: --pass libre|lazy|typed [--rounds N]\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }
    let n = LibreComparison.passOnly(corpus: SIPCorpus.load(corpusDirectory), kind: pass, rounds: rounds)
    print("{\"benchmark\":\"bench-sip-pass\",\"pass\":\"\(kind)\",\"rounds\":\(rounds),\"messages\":\(n)}")
    exit(0)
}

if CommandLine.arguments.contains("--allocations") {
    allocationReport()
    exit(0)
}

var fields = [String]()
func record(_ name: String, _ result: (cpu: Double, wall: Double), into fields: inout [String]) {
    fields.append("\"\(name)_msgs_per_cpu_s\":\(Int(result.cpu))")
    fields.append("\"\(name)_msgs_per_wall_s\":\(Int(result.wall))")
}
for (name, bytes) in messages {
    fields.append("\"\(name)_bytes\":\(bytes.count)")
    record(name, measure([bytes], rounds: 40_000, typed: false), into: &fields)
}
/// The one redactor (what `--sip-trace` runs on every message): messages per CPU second.
func measureRedaction(_ bytes: [UInt8], rounds: Int) -> (cpu: Double, wall: Double) {
    let clock = ContinuousClock()
    var best = (cpu: 0.0, wall: 0.0)
    for _ in 0..<5 {
        let start = clock.now
        let cpuStart = threadCPUSeconds()
        for _ in 0..<rounds { sink &+= consume(Redaction.redact(bytes: bytes)) }
        let cpu = threadCPUSeconds() - cpuStart
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        best = (max(best.cpu, Double(rounds) / cpu), max(best.wall, Double(rounds) / seconds))
    }
    return best
}
for (name, bytes) in messages { record("redact_\(name)", measureRedaction(bytes, rounds: 40_000), into: &fields) }
let all = messages.map(\.1)
record("mix", measure(all, rounds: 10_000, typed: false), into: &fields)
record("mix_with_typed_via_cseq_callid", measure(all, rounds: 10_000, typed: true), into: &fields)
// Parse only, against libre's sip_msg_decode on the corpus of the SIPCore test resources.
let corpus = SIPCorpus.load(corpusDirectory)
if corpus.isEmpty {
    let line = Array("bench-sip: no corpus messages under \(corpusDirectory) (run from the repository root or pass --corpus DIR)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}
let libre = LibreComparison.run(corpus: corpus)
fields.append("\"corpus_messages\":\(libre.messages)")
fields.append("\"corpus_rejected_by_libre\":\(libre.rejectedByLibre)")
fields.append("\"corpus_rejected_by_sipcore\":\(libre.rejectedBySIPCore)")
fields.append("\"corpus_libre_decode_msgs_per_cpu_s\":\(Int(libre.libre))")
fields.append("\"corpus_lazy_parse_msgs_per_cpu_s\":\(Int(libre.lazy))")
fields.append("\"corpus_typed_parse_msgs_per_cpu_s\":\(Int(libre.typed))")
func ratio(_ a: Double, _ b: Double) -> String { b > 0 ? String(Double(Int(a / b * 100)) / 100) : "null" }
fields.append("\"corpus_lazy_vs_libre\":\(ratio(libre.lazy, libre.libre))")
fields.append("\"corpus_typed_vs_libre\":\(ratio(libre.typed, libre.libre))")
fields.append("\"target_typed_vs_libre\":3")
print(
    "{\"benchmark\":\"bench-sip\",\"unit\":\"messages/s\",\"cores\":1,\"operation\":\"parse+serialize\","
        + "\"target_mix_msgs_per_s\":300000," + fields.joined(separator: ",") + "}")
if sink == 42 { print("") }
