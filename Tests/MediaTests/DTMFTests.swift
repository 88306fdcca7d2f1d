import Testing

@testable import Media

@Suite struct DTMFTests {
    @Test func payloadsMatchTheDerivedVectors() throws {
        let json = try Vectors.json("dtmf_vectors.json")
        let examples = try #require(json["examples_self_computed"] as? [[String: Any]])
        for e in examples {
            let p = TelephoneEventPayload(
                event: UInt8(e["event"] as! Int), isEnd: e["E"] as! Bool,
                volume: UInt8(e["volume"] as! Int), duration: UInt16(e["duration"] as! Int))
            #expect(p.bytes == hexBytes(e["payload_hex"] as! String))
            #expect(try TelephoneEventPayload(parsing: p.bytes) == p)
        }
        let codes = try #require(json["dtmf_event_codes_rfc4733_s3.2"] as? [String: Int])
        for (key, code) in codes { #expect(DTMFDigit(Character(key))?.rawValue == UInt8(code)) }
    }

    /// Sends every key through the RFC 4733 sender and receiver (with each packet duplicated
    /// and the triple end packets), and gets exactly one began/ended pair per key, in order.
    @Test func senderAndReceiverCarryAllSixteenKeysInOrder() throws {
        var sender = DTMFSender(toneDuration: .milliseconds(100), pause: .milliseconds(40))
        sender.enqueue(DTMFDigit.digits("0123456789*#ABCD")!)
        var receiver = DTMFReceiver()
        var events: [DTMFReceiver.Event] = []
        var timestamp: UInt32 = 0xFFFF_F000  // wraps during the run
        var packets = 0
        var markers = 0
        var ends = 0
        while sender.isActive {
            if let packet = sender.tick(timestamp: timestamp) {
                packets += 1
                if packet.marker { markers += 1 }
                if packet.payload.isEnd { ends += 1 }
                for _ in 0..<2 {
                    events += try receiver.receive(timestamp: packet.timestamp, payload: packet.payload.bytes)
                }
            }
            timestamp &+= 160
        }
        #expect(markers == 16 && ends == 48)
        let began = events.compactMap { if case .began(let d) = $0 { d } else { nil } }
        let ended = events.compactMap { if case .ended(let d, let duration) = $0 { (d, duration) } else { nil } }
        #expect(String(began.map(\.character)) == "0123456789*#ABCD")
        #expect(String(ended.map(\.0.character)) == "0123456789*#ABCD")
        #expect(ended.allSatisfy { $0.1 == 800 })
        #expect(events.count == 32)
    }

    @Test func receiverClosesAnEventWhoseEndPacketsWereLost() throws {
        var r = DTMFReceiver()
        let a = try r.receive(
            timestamp: 1000, payload: TelephoneEventPayload(event: 5, isEnd: false, volume: 10, duration: 160).bytes)
        let b = try r.receive(
            timestamp: 2000, payload: TelephoneEventPayload(event: 6, isEnd: true, volume: 10, duration: 800).bytes)
        #expect(a == [.began(.d5)])
        #expect(b == [.ended(.d5, duration: 0), .began(.d6), .ended(.d6, duration: 800)])
        #expect(
            try r.receive(
                timestamp: 2000, payload: TelephoneEventPayload(event: 6, isEnd: true, volume: 10, duration: 800).bytes)
                == [])
        #expect(throws: MediaError(.malformedPacket)) { try r.receive(timestamp: 1, payload: [1, 2]) }
    }

    @Test func goertzelFindsToneFrequency() {
        var tone = ToneGenerator(frequencies: [1000], amplitude: 10000)
        let s = tone.samples(800)
        let candidates: [Double] = [400, 697, 941, 1000, 1209, 1633, 2000, 3000]
        #expect(Goertzel.dominant(s, candidates: candidates, sampleRate: 8000) == 1000)
        let p = Goertzel.power(s, frequency: 1000, sampleRate: 8000)
        #expect(abs(p - 10000 * 10000 / 4) / (10000 * 10000 / 4) < 0.02)
        #expect(Goertzel.power(s, frequency: 2000, sampleRate: 8000) < p / 1000)
    }

    @Test func inBandDetectorFindsAllSixteenKeysThroughG711() {
        var audio: [Int16] = []
        for digit in DTMFDigit.allCases {
            var tone = ToneGenerator.dtmf(digit, duration: .milliseconds(80))
            audio += tone.samples(640)
            audio += [Int16](repeating: 0, count: 480)  // 60 ms pause
        }
        // Through A-law, as it would arrive.
        let decoded = G711.decode(.aLaw, G711.encode(.aLaw, audio))
        var detector = DTMFDetector()
        var found: [DTMFDigit] = []
        for start in stride(from: 0, to: decoded.count, by: 160) {
            found += detector.process(Array(decoded[start..<min(decoded.count, start + 160)]))
        }
        #expect(found == DTMFDigit.allCases)
        var silent = DTMFDetector()
        var speechLike = ToneGenerator(frequencies: [440, 1000, 2500], amplitude: 5000)
        #expect(silent.process(speechLike.samples(8000)) == [])
    }
}
