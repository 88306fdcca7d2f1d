import Media

/// The RTP receive path (RFC 3550) after demultiplexing (RFC 7983): packet parsing, reception
/// statistics, G.711 decoding into the jitter buffer, and RFC 4733 telephone events. The input
/// is a series of framed datagrams arriving 20 ms apart (a control byte before each shifts its
/// arrival). Seeds: packets our sender writes (audio, DTMF, CSRCs, extension, padding) and the
/// RFC 4733 payloads of the DTMF vectors.
///
/// Invariants: parse → serialize → parse gives the same packet, and the allocation-free header
/// parser agrees with it; the jitter buffer never holds more than its capacity; DTMF yields at
/// most one `ended` per `began`.
enum RTPTarget {
    static let target = FuzzTarget(
        name: "rtp",
        summary: "RTP parser round trip, reception statistics, jitter buffer, telephone events (RFC 3550, RFC 4733)",
        maxLength: 8192, seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        var jitter = JitterBuffer()
        var dtmf = DTMFReceiver()
        var statistics: RTPReceptionStatistics?
        var open = 0
        var arrival = Duration.zero
        var count = 0
        while !input.isAtEnd && count < 200 {
            let control = input.byte()
            let datagram = input.framed()
            count += 1
            arrival += .milliseconds(20) + .milliseconds(Int(control & 0x3F)) - .milliseconds(32)
            if arrival < .zero { arrival = .zero }
            _ = PacketDemultiplexer.classify(datagram)
            guard let packet = checkRoundTrip(datagram) else { continue }
            let h = packet.header
            if statistics == nil {
                statistics = RTPReceptionStatistics(ssrc: h.ssrc, firstSequenceNumber: h.sequenceNumber)
            }
            let units = UInt32(truncatingIfNeeded: arrival.components.seconds &* 8000)
            _ = statistics?.update(sequenceNumber: h.sequenceNumber, timestamp: h.timestamp, arrival: units)
            _ = (statistics?.expected, statistics?.extendedHighestSequence, statistics?.jitter)
            switch h.payloadType {
            case 0, 8:
                let samples = G711.decode(h.payloadType == 8 ? .aLaw : .muLaw, Array(packet.payload.prefix(320)))
                jitter.insert(
                    sequenceNumber: h.sequenceNumber, timestamp: h.timestamp, samples: samples, arrival: arrival)
            case 101:
                guard let events = try? dtmf.receive(timestamp: h.timestamp, payload: packet.payload) else { break }
                for event in events {
                    if case .began = event { open += 1 } else { open -= 1 }
                    invariant(open >= 0 && open <= 1, "telephone events out of pairs")
                }
            default:
                break
            }
            if control & 0x40 != 0 { jitter.resync() }
            _ = jitter.pop(now: arrival)
            invariant(jitter.statistics.buffered <= jitter.configuration.capacity, "jitter buffer over capacity")
        }
    }

    static func checkRoundTrip(_ datagram: [UInt8]) -> RTPPacket? {
        guard let packet = try? RTPPacket(parsing: datagram) else { return nil }
        let header = datagram.withUnsafeBytes { try? RTPHeader.parse($0) }
        invariant(header?.header == packet.header, "RTPHeader.parse and RTPPacket disagree")
        let again = try? RTPPacket(parsing: packet.serialized())
        invariant(again == packet, "RTP packet does not survive serialize → parse")
        return packet
    }

    static func seeds() -> [[UInt8]] {
        var packets: [[UInt8]] = []
        let tone = (0..<160).map { G711.encodeALaw(Int16(truncatingIfNeeded: $0 * 200)) }
        for i in 0..<6 {
            let header = RTPHeader(
                marker: i == 0, payloadType: 8, sequenceNumber: UInt16(truncatingIfNeeded: 65_533 + i),
                timestamp: UInt32(160 * i), ssrc: 0x1234_5678)
            packets.append(RTPPacket(header: header, payload: tone).serialized())
        }
        var rich = RTPHeader(marker: false, payloadType: 0, sequenceNumber: 7, timestamp: 1120, ssrc: 0x1234_5678)
        rich.csrcs = [1, 2]
        rich.headerExtension = RTPHeader.Extension(profile: 0xBEDE, data: [0x10, 0xAA, 0, 0])
        packets.append(RTPPacket(header: rich, payload: Array(tone.prefix(80)), paddingCount: 3).serialized())
        let vectors = SeedFiles.json("Tests/MediaTests/Vectors/dtmf_vectors.json")
        let payloads = SeedFiles.strings(in: vectors).compactMap(SeedFiles.hex).filter { $0.count == 4 }
        for (i, payload) in payloads.prefix(12).enumerated() {
            let header = RTPHeader(
                marker: i == 0, payloadType: 101, sequenceNumber: UInt16(100 + i), timestamp: 8000, ssrc: 0x1234_5678)
            packets.append(RTPPacket(header: header, payload: payload).serialized())
        }
        var stream: [UInt8] = []
        for p in packets { stream += [32] + FuzzInput.framed([p]) }
        return [stream] + packets.map { [32] + FuzzInput.framed([$0]) }
    }
}
