import Testing

@testable import Media

/// An independent G.711 reference computed from the standard's segment tables (ITU-T G.711
/// Tables 1a/2a), not from the module's code: decision by searching the decoded
/// reconstruction levels' segment/step structure.
enum G711Reference {
    /// A-law: 13-bit magnitude (sample >> 3), segment 0 and 1 both step 2 (in 13-bit units:
    /// 1), segments k ≥ 1 start at 16·2^(k-1)·2... computed as: magnitude m (0…4095) →
    /// segment = max(0, floor(log2(m)) - 4), step = segment == 0 ? 1 : 2^(segment-1)… all in
    /// 13-bit units, then even-bit inversion.
    static func aLawEncode(_ sample: Int16) -> UInt8 {
        let v = Int(sample) >> 3  // 13-bit, arithmetic
        let positive = v >= 0
        let m = positive ? v : -v - 1  // one's-complement magnitude, 0…4095
        var code: Int
        if m >= 4096 {
            code = 0x7F
        } else if m < 32 {
            code = m >> 1  // segment 0: 16 steps of 2
        } else {
            var segment = 1
            while m >= (32 << segment) { segment += 1 }  // segment k covers [16·2^k, 32·2^k)
            let step = 1 << segment
            code = segment << 4 | ((m - (16 << segment)) / step) & 0x0F
        }
        return UInt8((code | (positive ? 0x80 : 0)) ^ 0x55)
    }

    /// µ-law on the 14-bit value (sample >> 2) with bias 33, segment ends 2^(k+6) - 1.
    static func muLawEncode(_ sample: Int16) -> UInt8 {
        let v = Int(sample) >> 2
        let negative = v < 0
        var m = min(negative ? -v : v, 8159) + 33
        var segment = 0
        while segment < 8 && m >= (64 << segment) { segment += 1 }
        let code: Int
        if segment >= 8 {
            code = 0x7F
        } else {
            m >>= segment + 1
            code = segment << 4 | (m & 0x0F)
        }
        return UInt8(~(code | (negative ? 0x80 : 0)) & 0xFF)
    }

    /// Reconstruction level: middle of the decision interval (G.711 Table 1a col. 7, scaled ×8).
    static func aLawDecode(_ code: UInt8) -> Int16 {
        let c = Int(code ^ 0x55)
        let segment = (c >> 4) & 7
        let q = c & 0x0F
        let m13 = segment == 0 ? (2 * q + 1) : ((16 + q) << segment) + (1 << (segment - 1))  // ×2 mid-points
        let magnitude = segment == 0 ? m13 << 3 : m13 << 3
        return Int16(c & 0x80 != 0 ? magnitude : -magnitude)
    }

    /// µ-law reconstruction: ((2q + 33) · 2^segment − 33) · 4.
    static func muLawDecode(_ code: UInt8) -> Int16 {
        let c = Int(~code & 0xFF)
        let segment = (c >> 4) & 7
        let q = c & 0x0F
        let magnitude = (((2 * q + 33) << segment) - 33) * 4
        return Int16(c & 0x80 != 0 ? -magnitude : magnitude)
    }
}

@Suite struct G711Tests {
    @Test func aLawEncodeMatchesIndependentReferenceAndAudioopForAll65536Inputs() throws {
        let vector = try Vectors.data("g711_alaw_encode.bin")
        #expect(vector.count == 65536)
        var mismatches = 0
        for k in 0..<65536 {
            let s = Int16(k - 32768)
            let ours = G711.encodeALaw(s)
            if ours != vector[k] || ours != G711Reference.aLawEncode(s) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func muLawEncodeMatchesIndependentReferenceAndAudioopForAll65536Inputs() throws {
        let vector = try Vectors.data("g711_ulaw_encode.bin")
        #expect(vector.count == 65536)
        var mismatches = 0
        for k in 0..<65536 {
            let s = Int16(k - 32768)
            let ours = G711.encodeMuLaw(s)
            if ours != vector[k] || ours != G711Reference.muLawEncode(s) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func decodeTablesMatchReferenceAndAudioopForAll256Codes() throws {
        let a = try Vectors.data("g711_alaw_decode.bin")
        let u = try Vectors.data("g711_ulaw_decode.bin")
        for code in 0...255 {
            let va = Int16(bitPattern: UInt16(a[2 * code]) | UInt16(a[2 * code + 1]) << 8)
            let vu = Int16(bitPattern: UInt16(u[2 * code]) | UInt16(u[2 * code + 1]) << 8)
            #expect(G711.decodeALaw(UInt8(code)) == va, "A-law \(code)")
            #expect(G711.decodeMuLaw(UInt8(code)) == vu, "µ-law \(code)")
            #expect(G711Reference.aLawDecode(UInt8(code)) == va, "reference A-law \(code)")
            #expect(G711Reference.muLawDecode(UInt8(code)) == vu, "reference µ-law \(code)")
        }
    }

    @Test func spotValuesAndRoundTrips() {
        #expect(G711.encodeALaw(0) == 213 && G711.encodeALaw(-1) == 85 && G711.encodeALaw(-32768) == 42)
        #expect(G711.encodeMuLaw(0) == 255 && G711.encodeMuLaw(8) == 254 && G711.encodeMuLaw(-32768) == 0)
        for code in 0...255 {
            #expect(G711.encodeALaw(G711.decodeALaw(UInt8(code))) == UInt8(code))
            if code != 0x7F { #expect(G711.encodeMuLaw(G711.decodeMuLaw(UInt8(code))) == UInt8(code)) }
        }
        #expect(G711.encodeMuLaw(G711.decodeMuLaw(0x7F)) == 0xFF)  // negative zero
    }

    @Test func bufferAPIsAgreeWithScalarAPIs() {
        var tone = ToneGenerator(frequencies: [1000], amplitude: 20000)
        let pcm = tone.samples(160)
        let a = G711.encode(.aLaw, pcm)
        let u = G711.encode(.muLaw, pcm)
        #expect(a == pcm.map(G711.encodeALaw))
        #expect(u == pcm.map(G711.encodeMuLaw))
        #expect(G711.decode(.aLaw, a) == a.map(G711.decodeALaw))
        #expect(G711.decode(.muLaw, u) == u.map(G711.decodeMuLaw))
    }
}
