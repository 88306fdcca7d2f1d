// bench-webrtc: time from start to first decrypted audio (ICE + DTLS-SRTP) between two
// in-process MediaSessions on 127.0.0.1 (median of 25 runs), the in-memory DTLS handshake
// cost, and the per-packet SRTP cost with DTLS-exported keys. One JSON object on stdout.
import Glibc
import Media
import SIPCore
import Synchronization

func cpuNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3  // µs
}

func loadAverage() -> Double {
    var loads = [Double](repeating: 0, count: 3)
    return getloadavg(&loads, 3) > 0 ? loads[0] : -1
}

func fmt(_ v: Double, _ digits: Int = 3) -> String {
    let scale = pow(10.0, Double(digits))
    return String((v * scale).rounded() / scale)
}

func median(_ v: [Double]) -> Double {
    let s = v.sorted()
    return s.isEmpty ? .nan : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func ms(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
}

/// When each milestone was first seen on a session's event stream.
final class Milestones: Sendable {
    let times = Mutex<[String: ContinuousClock.Instant]>([:])
    init(_ session: MediaSession<ContinuousClock>) {
        let stream = session.events
        Task {
            for await e in stream {
                let now = ContinuousClock.now
                var key: String?
                switch e {
                case .webRTC(.iceStateChanged(.completed)): key = "ice"
                case .webRTC(.dtlsConnected): key = "dtls"
                case .remoteSource: key = "audio"  // first RTP packet that passed SRTP
                case .webRTC(.dtlsFailed), .webRTC(.iceFailed): key = "failed"
                default: break
                }
                if let key { self.times.withLock { if $0[key] == nil { $0[key] = now } } }
            }
        }
    }
    subscript(_ key: String) -> ContinuousClock.Instant? { times.withLock { $0[key] } }
}

struct Run {
    var fromStart: Double
    var fromAnswer: Double
    var ice: Double
    var dtls: Double
}

func configuration(_ role: ICEAgent.Role) -> MediaSessionConfiguration {
    var c = MediaSessionConfiguration()
    var w = WebRTCConfiguration()
    w.iceRole = role
    c.webRTC = w
    return c
}

/// One call set-up: sessions created and started, offer/answer in process, until both ends
/// have decrypted a first audio packet.
func oneRun(seed: UInt64) async throws -> Run? {
    let start = ContinuousClock.now
    let a = try MediaSession(
        configuration: configuration(.controlling), clock: ContinuousClock(), ids: SeededIdentifierSource(seed: seed))
    let b = try MediaSession(
        configuration: configuration(.controlled), clock: ContinuousClock(), ids: SeededIdentifierSource(seed: seed + 1)
    )
    let ma = Milestones(a)
    let mb = Milestones(b)
    await a.start(remote: nil, source: ToneGenerator(frequencies: [1000]))
    await b.start(remote: nil, source: ToneGenerator(frequencies: [1000]))
    guard let la = await a.webRTCLocalParameters(), let lb = await b.webRTCLocalParameters() else { return nil }
    let capsA = AudioCapabilities.webRTC(address: "127.0.0.1", port: a.localAddress.port, local: la)
    let offer = OfferAnswer.makeWebRTCOffer(
        capsA, origin: SDPOrigin(sessionID: "1", sessionVersion: 1, address: "127.0.0.1"))
    let capsB = AudioCapabilities.webRTC(address: "127.0.0.1", port: b.localAddress.port, local: lb)
    let (answer, audioB) = try OfferAnswer.makeWebRTCAnswer(
        to: try SessionDescription(parsing: offer.serialized()), capabilities: capsB,
        origin: SDPOrigin(sessionID: "2", sessionVersion: 1, address: "127.0.0.1"))
    try await b.apply(audioB)
    let audioA = try OfferAnswer.processAnswer(
        try SessionDescription(parsing: answer.serialized()), offer: offer, capabilities: capsA)
    let answered = ContinuousClock.now
    try await a.apply(audioA)
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline, ma["audio"] == nil || mb["audio"] == nil, ma["failed"] == nil {
        try await Task.sleep(for: .milliseconds(1))
    }
    await a.stop()
    await b.stop()
    guard let audioAt = [ma["audio"], mb["audio"]].compactMap({ $0 }).max(), ma["audio"] != nil, mb["audio"] != nil,
        let ice = ma["ice"], let dtlsA = ma["dtls"], let dtlsB = mb["dtls"]
    else { return nil }
    return Run(
        fromStart: ms(start.duration(to: audioAt)), fromAnswer: ms(answered.duration(to: audioAt)),
        ice: ms(answered.duration(to: ice)), dtls: ms(answered.duration(to: max(dtlsA, dtlsB))))
}

// 1. Set-up time over loopback.
var runs: [Run] = []
var failures = 0
_ = try await oneRun(seed: 1)  // warm-up (page faults, OpenSSL lazy init)
for i in 0..<25 {
    if let r = try await oneRun(seed: UInt64(100 + 2 * i)) { runs.append(r) } else { failures += 1 }
}

// 2. DTLS handshake in memory (CPU of this thread; both ends run here).
func handshake() throws -> (SRTPKeys, SRTPKeys, Double) {
    let cc = try DTLSCertificate()
    let sc = try DTLSCertificate()
    let client = try DTLSTransport(role: .client, certificate: cc, expectedFingerprint: sc.fingerprint)
    let server = try DTLSTransport(role: .server, certificate: sc, expectedFingerprint: cc.fingerprint)
    let t0 = cpuNow()
    var toServer: [[UInt8]] = []
    var toClient: [[UInt8]] = []
    var keys: (SRTPKeys?, SRTPKeys?) = (nil, nil)
    func take(_ actions: [DTLSTransport.Action], client: Bool) {
        for a in actions {
            if case .send(let d) = a { if client { toServer.append(d) } else { toClient.append(d) } }
            if case .connected(let k) = a { if client { keys.0 = k } else { keys.1 = k } }
        }
    }
    take(client.start(), client: true)
    while !toServer.isEmpty || !toClient.isEmpty {
        let s = toServer
        toServer = []
        for d in s { take(server.receive(d), client: false) }
        let c = toClient
        toClient = []
        for d in c { take(client.receive(d), client: true) }
    }
    let cpu = cpuNow() - t0
    guard let k0 = keys.0, let k1 = keys.1 else { throw DTLSError(.handshakeFailed, "bench handshake") }
    return (k0, k1, cpu)
}
var handshakeCPU: [Double] = []
var keys: (SRTPKeys, SRTPKeys)?
for _ in 0..<20 {
    let (k0, k1, cpu) = try handshake()
    handshakeCPU.append(cpu / 1000)
    keys = (k0, k1)
}

// 3. Per packet with the DTLS-exported keys: protect (A) and unprotect (B), 160-byte G.711.
let (clientKeys, serverKeys) = keys!
let sender = RTPSender(ssrc: 0x1234_5678, initialSequenceNumber: 1, initialTimestamp: 0)
let packets = 100_000
var plain = [UInt8](repeating: 0, count: 12 + 160 + SRTPContext.maxRTCPTrailer)
var header = sender
_ = plain.withUnsafeMutableBytes { header.nextHeader(payloadType: 8, payloadSize: 160).write(into: $0) }
var protectCPU: [Double] = []
var unprotectCPU: [Double] = []
for _ in 0..<5 {
    // Fresh contexts each round (the replay window would refuse a second pass).
    let tx = try SRTPContext(key: clientKeys.local, direction: .outbound)
    let rx = try SRTPContext(key: serverKeys.remote, direction: .inbound)
    var batch = [[UInt8]](repeating: plain, count: packets)
    var lengths = [Int](repeating: 0, count: packets)
    for i in 0..<packets {  // distinct sequence numbers, written before timing
        batch[i][2] = UInt8(truncatingIfNeeded: (i + 1) >> 8)
        batch[i][3] = UInt8(truncatingIfNeeded: i + 1)
    }
    let t0 = cpuNow()
    for i in 0..<packets {
        lengths[i] = try batch[i].withUnsafeMutableBytes {
            try tx.protect($0.baseAddress!, length: 172, capacity: $0.count)
        }
    }
    let t1 = cpuNow()
    for i in 0..<packets {
        _ = try batch[i].withUnsafeMutableBytes { try rx.unprotect($0.baseAddress!, length: lengths[i]) }
    }
    let t2 = cpuNow()
    protectCPU.append((t1 - t0) / Double(packets))
    unprotectCPU.append((t2 - t1) / Double(packets))
}

let fromStart = runs.map(\.fromStart)
let fromAnswer = runs.map(\.fromAnswer)
let medianAnswer = median(fromAnswer)
print(
    """
    {"bench":"webrtc","runs":\(runs.count),"failed_runs":\(failures),\
    "setup_to_first_audio_ms":{"median_from_start":\(fmt(median(fromStart))),"median_from_answer":\(fmt(medianAnswer)),\
    "best_from_answer":\(fmt(fromAnswer.min() ?? .nan)),"worst_from_answer":\(fmt(fromAnswer.max() ?? .nan)),\
    "median_ice_completed_from_answer":\(fmt(median(runs.map(\.ice)))),"median_dtls_connected_from_answer":\(fmt(median(runs.map(\.dtls))))},\
    "target_ms":150,"meets_target":\(medianAnswer <= 150 && median(fromStart) <= 150),\
    "dtls_handshake_cpu_ms_median":\(fmt(median(handshakeCPU))),"srtp_profile":"\(clientKeys.local.profile.sdesName)",\
    "per_packet_cpu_us":{"protect":\(fmt(median(protectCPU))),"unprotect":\(fmt(median(unprotectCPU)))},\
    "load_average":\(fmt(loadAverage(), 2))}
    """)
