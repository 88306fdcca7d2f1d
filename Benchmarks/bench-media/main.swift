// bench-media: per-packet cost of the G.711 + SRTP media path over real UDP loopback sockets,
// streams per core, and the pacing of a real MediaSession over 10 s. One JSON object on stdout.
import Glibc
import Media
import SIPCore

func cpuNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3  // µs
}

func wallNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
}

func loadAverage() -> Double {
    var loads = [Double](repeating: 0, count: 3)
    return getloadavg(&loads, 3) > 0 ? loads[0] : -1
}

func fmt(_ v: Double, _ digits: Int = 3) -> String {
    let scale = pow(10.0, Double(digits))
    return String((v * scale).rounded() / scale)
}

/// One direction of one stream: the objects the session's hot path uses.
struct Stream {
    var sender: RTPSender
    let tx: SRTPContext
    let rx: SRTPContext
}

let ids = SeededIdentifierSource(seed: 2026)
let txSocket = try UDPSocket(bindHost: "127.0.0.1")
let rxSocket = try UDPSocket(bindHost: "127.0.0.1")
let destination = rxSocket.localAddress
var tone = ToneGenerator(frequencies: [1000], amplitude: 8000)
let pcm = tone.samples(160)
var decoded = [Int16](repeating: 0, count: 160)
var txBuffer = [UInt8](repeating: 0, count: 12 + 160 + SRTPContext.maxRTCPTrailer)
var rxBuffer = [UInt8](repeating: 0, count: 2048)

func makeStream() throws -> Stream {
    let key = SRTPKeyMaterial.random(.aesCM128HmacSHA1_80)
    return Stream(
        sender: RTPSender(ssrc: ids.nextUInt32(), initialSequenceNumber: 1, initialTimestamp: 0),
        tx: try SRTPContext(key: key, direction: .outbound), rx: try SRTPContext(key: key, direction: .inbound))
}

/// encode + RTP header + SRTP protect + sendto.
@MainActor @inline(never)
func sendOne(_ s: inout Stream, connected: UDPSocket? = nil) throws -> Int {
    let header = s.sender.nextHeader(payloadType: 8, payloadSize: 160)
    s.sender.advanceTimestamp(by: 160)
    return try txBuffer.withUnsafeMutableBytes { raw in
        header.write(into: raw)
        pcm.withUnsafeBufferPointer {
            G711.encode(.aLaw, $0, into: UnsafeMutableRawBufferPointer(rebasing: raw[12..<172]))
        }
        let n = try s.tx.protect(raw.baseAddress!, length: 172, capacity: raw.count)
        if let connected {
            _ = connected.sendConnected(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
        } else {
            _ = txSocket.send(UnsafeRawBufferPointer(rebasing: raw[0..<n]), to: destination)
        }
        return n
    }
}

/// recv + SRTP unprotect + RTP parse + decode. Returns false when nothing was waiting.
@MainActor @inline(never)
func receiveOne(_ s: Stream) throws -> Bool {
    try rxBuffer.withUnsafeMutableBytes { raw in
        let n = rxSocket.receive(into: raw) as Int
        guard n > 0 else { return false }
        let plain = try s.rx.unprotect(raw.baseAddress!, length: n)
        let (_, range) = try RTPHeader.parse(UnsafeRawBufferPointer(rebasing: raw[0..<plain]))
        decoded.withUnsafeMutableBufferPointer {
            G711.decode(.aLaw, UnsafeRawBufferPointer(rebasing: raw[range]), into: $0)
        }
        return true
    }
}

// 1. Per-packet cost, one stream, batches of 128 packets: send the batch (timed), receive it
//    (timed). Seven rounds of 300 batches; the machine is shared, so the median and the best
//    round are both reported (best-of-N is the figure least disturbed by other tenants).
var stream = try makeStream()
var received = 0
var rounds: [(tx: Double, rx: Double, txWall: Double, rxWall: Double)] = []
for round in 0..<8 {
    var txCPU = 0.0
    var rxCPU = 0.0
    var txWall = 0.0
    var rxWall = 0.0
    for _ in 0..<300 {
        let c0 = cpuNow()
        let w0 = wallNow()
        for _ in 0..<128 { _ = try sendOne(&stream) }
        let c1 = cpuNow()
        let w1 = wallNow()
        var got = 0
        var spins = 0
        while got < 128 && spins < 100_000 {
            if try receiveOne(stream) { got += 1 } else { spins += 1 }
        }
        let c2 = cpuNow()
        let w2 = wallNow()
        txCPU += c1 - c0
        rxCPU += c2 - c1
        txWall += w1 - w0
        rxWall += w2 - w1
        if round > 0 { received += got }
    }
    let n = 300.0 * 128
    if round > 0 { rounds.append((txCPU / n, rxCPU / n, txWall / n, rxWall / n)) }  // round 0 warms up
}
let packets = Double(rounds.count * 300 * 128)
func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
let txPerPacket = median(rounds.map(\.tx))
let rxPerPacket = median(rounds.map(\.rx))
let txBest = rounds.map(\.tx).min()!
let rxBest = rounds.map(\.rx).min()!
let txWall = median(rounds.map(\.txWall))
let rxWall = median(rounds.map(\.rxWall))

// 1a. The same transmit path on a connected socket (MediaSessionConfiguration.connectSocket).
let txConnectedSocket = try UDPSocket(bindHost: "127.0.0.1")
try txConnectedSocket.connect(to: destination)
var connectedRounds: [Double] = []
for _ in 0..<5 {
    var cpu = 0.0
    for _ in 0..<300 {
        let c0 = cpuNow()
        for _ in 0..<128 { _ = try sendOne(&stream, connected: txConnectedSocket) }
        cpu += cpuNow() - c0
        var got = 0
        var spins = 0
        while got < 128 && spins < 100_000 {
            if try receiveOne(stream) { got += 1 } else { spins += 1 }
        }
    }
    connectedRounds.append(cpu / (300 * 128))
}
let txConnected = median(connectedRounds)

// 1b. Breakdown of the same path without the socket: encode, protect, unprotect, decode.
func timeLoop(_ count: Int, _ body: () throws -> Void) rethrows -> Double {
    let t0 = cpuNow()
    for _ in 0..<count { try body() }
    return (cpuNow() - t0) / Double(count)
}
var bdStream = try makeStream()
var work = [UInt8](repeating: 0, count: 12 + 160 + SRTPContext.maxRTCPTrailer)
let encodeCost = timeLoop(200_000) {
    work.withUnsafeMutableBytes { raw in
        pcm.withUnsafeBufferPointer {
            G711.encode(.aLaw, $0, into: UnsafeMutableRawBufferPointer(rebasing: raw[12..<172]))
        }
    }
}
var protectedPackets: [[UInt8]] = []
protectedPackets.reserveCapacity(200_000)
let protectCost = try timeLoop(200_000) {
    let header = bdStream.sender.nextHeader(payloadType: 8, payloadSize: 160)
    try work.withUnsafeMutableBytes { raw in
        header.write(into: raw)
        let n = try bdStream.tx.protect(raw.baseAddress!, length: 172, capacity: raw.count)
        protectedPackets.append(Array(raw[0..<n]))
    }
}
var index = 0
let unprotectCost = try timeLoop(200_000) {
    try protectedPackets[index].withUnsafeMutableBytes { raw in
        _ = try bdStream.rx.unprotect(raw.baseAddress!, length: raw.count)
    }
    index += 1
}
let decodeCost = timeLoop(200_000) {
    work.withUnsafeBytes { raw in
        decoded.withUnsafeMutableBufferPointer {
            G711.decode(.aLaw, UnsafeRawBufferPointer(rebasing: raw[12..<172]), into: $0)
        }
    }
}
let sendCost = timeLoop(100_000) {
    _ = work.withUnsafeBytes { txSocket.send(UnsafeRawBufferPointer(rebasing: $0[0..<182]), to: destination) }
}
let connectedSocket = try UDPSocket(bindHost: "127.0.0.1")
try connectedSocket.connect(to: destination)
let sendConnectedCost = timeLoop(100_000) {
    _ = work.withUnsafeBytes { connectedSocket.sendConnected(UnsafeRawBufferPointer(rebasing: $0[0..<182])) }
}
var drained = 0
let recvCost = timeLoop(100_000) {
    if rxBuffer.withUnsafeMutableBytes({ rxSocket.receive(into: $0) as Int }) > 0 { drained += 1 }
}

// 2. Streams per core: 500 concurrent streams (own SRTP contexts each), one second of media
//    (50 packets per stream each way), measured in CPU time on this thread.
var streams = try (0..<500).map { _ in try makeStream() }
let s0 = cpuNow()
for _ in 0..<50 {
    for i in streams.indices {
        _ = try sendOne(&streams[i])
        var tries = 0
        while try !receiveOne(streams[i]) && tries < 10_000 { tries += 1 }
    }
}
let cpuFor500 = (cpuNow() - s0) / 1e6  // seconds of CPU for 1 s of media × 500 streams
let streamsPerCoreMeasured = 500 / cpuFor500
let streamsPerCoreFromPacketCost = 1e6 / (50 * (txPerPacket + rxPerPacket))

// 3. Pacing: a real MediaSession (G.711 + SRTP) sending to another for 10 s.
let keyA = SRTPKeyMaterial.random(.aesCM128HmacSHA1_80)
let keyB = SRTPKeyMaterial.random(.aesCM128HmacSHA1_80)
var ca = MediaSessionConfiguration()
ca.srtp = SRTPKeys(local: keyA, remote: keyB)
var cb = MediaSessionConfiguration()
cb.srtp = SRTPKeys(local: keyB, remote: keyA)
let a = try MediaSession(configuration: ca, clock: ContinuousClock(), ids: ids)
let b = try MediaSession(configuration: cb, clock: ContinuousClock(), ids: ids)
await b.start(remote: a.localAddress)
await a.start(remote: b.localAddress, source: ToneGenerator(frequencies: [1000]))
try await Task.sleep(for: .milliseconds(10_050))
let sa = await a.statistics
let sb = await b.statistics
await a.stop()
await b.stop()
func us(_ d: Duration) -> Double { Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12 }
let pacing = sa.pacing
let n = pacing.frames
let meanInterval = us(pacing.meanInterval ?? .zero) / 1000
let drift = us(pacing.drift(nominal: .milliseconds(20)) ?? .zero) / 1000
let span = us((pacing.lastSend ?? .zero) - (pacing.firstSend ?? .zero))
let fields: [(String, String)] = [
    ("benchmark", "\"bench-media\""),
    ("codec", "\"PCMA 20 ms (160 B) + SRTP AES_CM_128_HMAC_SHA1_80, UDP 127.0.0.1\""),
    ("packets_measured", String(Int(packets))),
    ("packets_received", String(received)),
    ("tx_us_per_packet_cpu", fmt(txPerPacket)),
    ("rx_us_per_packet_cpu", fmt(rxPerPacket)),
    ("tx_us_per_packet_cpu_best_round", fmt(txBest)),
    ("tx_us_per_packet_cpu_connected_socket", fmt(txConnected)),
    ("rx_us_per_packet_cpu_best_round", fmt(rxBest)),
    ("tx_us_per_packet_wall", fmt(txWall)),
    ("rx_us_per_packet_wall", fmt(rxWall)),
    ("load_average_1min", fmt(loadAverage(), 2)),
    ("target_us_per_packet", "3"),
    (
        "breakdown_us",
        "{\"g711_encode\": \(fmt(encodeCost)), \"srtp_protect\": \(fmt(protectCost)), \"sendto\": \(fmt(sendCost)), \"send_connected_socket\": \(fmt(sendConnectedCost)), "
            + "\"recv\": \(fmt(recvCost)), \"srtp_unprotect\": \(fmt(unprotectCost)), \"g711_decode\": \(fmt(decodeCost))}"
    ),
    ("streams_per_core_from_packet_cost", String(Int(streamsPerCoreFromPacketCost))),
    ("cpu_seconds_for_500_streams_1s_media", fmt(cpuFor500, 4)),
    ("streams_per_core_measured_500_contexts", String(Int(streamsPerCoreMeasured))),
    ("target_streams_per_core", "500"),
    ("pacing_frames_sent", String(n)),
    ("pacing_mean_interval_ms", fmt(meanInterval, 4)),
    ("pacing_drift_ms_over_run", fmt(drift, 3)),
    ("pacing_run_seconds", fmt(span / 1e6, 3)),
    ("pacing_last_frame_lateness_ms", fmt(us(pacing.lastLateness) / 1000, 3)),
    ("pacing_mean_lateness_ms", fmt(us(pacing.meanLateness) / 1000, 3)),
    ("pacing_max_lateness_ms", fmt(us(pacing.maxLateness) / 1000, 3)),
    ("pacing_frames_skipped", String(sa.framesSkipped)),
    ("pacing_receiver_packets", String(sb.packetsReceived)),
    ("pacing_receiver_srtp_failures", String(sb.srtpAuthenticationFailures + sb.srtpReplays)),
]
print("{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
