/// ITU-T G.711 A-law and µ-law companding, table-driven.
///
/// Bit-exact with the ITU-T reference behaviour as implemented by Sun's public-domain `g711.c`
/// and CPython's `audioop` (the vectors in `Tests/MediaTests/Vectors`):
/// - A-law encodes the 13 most significant bits of a 16-bit sample (`sample >> 3`), with the
///   even-bit inversion `0x55` (G.711 Table 1a);
/// - µ-law encodes the 14 most significant bits (`sample >> 2`, arithmetic shift) with bias 33
///   and clip 8159 (G.711 Table 2a). This equals `audioop.lin2ulaw`; the classic 16-bit Sun
///   encoder (bias 0x84 on all 16 bits) differs from it by one step for 381 negative inputs;
/// - decoding returns the segment mid-point scaled to 16 bits (`alaw2linear`, `ulaw2linear`).
///
/// Tables: decode 256 × Int16; encode indexed by the shifted sample (8,192 A-law, 16,384 µ-law
/// entries), built once on first use.
public enum G711: Sendable {
    /// The companding law. RTP static payload types: PCMU 0, PCMA 8 (RFC 3551 §6).
    public enum Law: Sendable, Hashable {
        case aLaw
        case muLaw
    }

    /// A-law code of silence (+0).
    public static let aLawSilence: UInt8 = 0xD5
    /// µ-law code of silence (+0).
    public static let muLawSilence: UInt8 = 0xFF

    // MARK: Scalar API

    /// Encodes one linear sample to A-law.
    @inline(__always)
    public static func encodeALaw(_ sample: Int16) -> UInt8 {
        aLawEncodeTable[Int(sample >> 3) + 4096]
    }

    /// Encodes one linear sample to µ-law.
    @inline(__always)
    public static func encodeMuLaw(_ sample: Int16) -> UInt8 {
        muLawEncodeTable[Int(sample >> 2) + 8192]
    }

    /// Decodes one A-law code.
    @inline(__always)
    public static func decodeALaw(_ code: UInt8) -> Int16 { aLawDecodeTable[Int(code)] }

    /// Decodes one µ-law code.
    @inline(__always)
    public static func decodeMuLaw(_ code: UInt8) -> Int16 { muLawDecodeTable[Int(code)] }

    // MARK: Buffer API (no allocation)

    /// Encodes `samples` into `output` (which must hold `samples.count` bytes).
    public static func encode(
        _ law: Law, _ samples: UnsafeBufferPointer<Int16>, into output: UnsafeMutableRawBufferPointer
    ) {
        precondition(output.count >= samples.count, "G711.encode: output too small")
        let count = samples.count
        guard count > 0, let src = samples.baseAddress,
            let dst = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return }
        switch law {
        case .aLaw:
            let table = aLawEncodePointer
            for i in 0..<count { dst[i] = table[Int(src[i] >> 3) &+ 4096] }
        case .muLaw:
            let table = muLawEncodePointer
            for i in 0..<count { dst[i] = table[Int(src[i] >> 2) &+ 8192] }
        }
    }

    /// Decodes `codes` into `output` (which must hold `codes.count` samples).
    public static func decode(
        _ law: Law, _ codes: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>
    ) {
        precondition(output.count >= codes.count, "G711.decode: output too small")
        guard let dst = output.baseAddress else { return }
        let table = law == .aLaw ? aLawDecodePointer : muLawDecodePointer
        for i in 0..<codes.count { dst[i] = table[Int(codes[i])] }
    }

    /// Encodes an array of samples.
    public static func encode(_ law: Law, _ samples: [Int16]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: samples.count)
        samples.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBytes { o in encode(law, s, into: o) }
        }
        return out
    }

    /// Decodes an array of codes.
    public static func decode(_ law: Law, _ codes: [UInt8]) -> [Int16] {
        var out = [Int16](repeating: 0, count: codes.count)
        codes.withUnsafeBytes { c in
            out.withUnsafeMutableBufferPointer { o in decode(law, c, into: o) }
        }
        return out
    }

    // MARK: Reference algorithms (used once to build the tables)

    /// Sun `linear2alaw` on a 13-bit two's-complement value (G.711 §A, Table 1a).
    static func referenceALaw13(_ value: Int) -> UInt8 {
        var pcm = value
        let mask: Int
        if pcm >= 0 {
            mask = 0xD5
        } else {
            mask = 0x55
            pcm = -pcm - 1
        }
        let ends = [0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF]
        guard let seg = ends.firstIndex(where: { pcm <= $0 }) else { return UInt8(0x7F ^ mask) }
        var aval = seg << 4
        aval |= seg < 2 ? (pcm >> 1) & 0x0F : (pcm >> seg) & 0x0F
        return UInt8(aval ^ mask)
    }

    /// `audioop` `st_14linear2ulaw` on a 14-bit two's-complement value (bias 33, clip 8159).
    static func referenceMuLaw14(_ value: Int) -> UInt8 {
        var pcm = value
        let mask: Int
        if pcm < 0 {
            pcm = -pcm
            mask = 0x7F
        } else {
            mask = 0xFF
        }
        if pcm > 8159 { pcm = 8159 }
        pcm += 0x84 >> 2
        let ends = [0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF]
        guard let seg = ends.firstIndex(where: { pcm <= $0 }) else { return UInt8(0x7F ^ mask) }
        let uval = (seg << 4) | ((pcm >> (seg + 1)) & 0x0F)
        return UInt8(uval ^ mask)
    }

    /// Sun `alaw2linear`.
    static func referenceALawDecode(_ code: UInt8) -> Int16 {
        let a = Int(code ^ 0x55)
        var t = (a & 0x0F) << 4
        let seg = (a & 0x70) >> 4
        switch seg {
        case 0: t += 8
        case 1: t += 0x108
        default: t = (t + 0x108) << (seg - 1)
        }
        return Int16((a & 0x80) != 0 ? t : -t)
    }

    /// Sun `ulaw2linear`.
    static func referenceMuLawDecode(_ code: UInt8) -> Int16 {
        let u = Int(~code)
        var t = ((u & 0x0F) << 3) + 0x84
        t <<= (u & 0x70) >> 4
        return Int16((u & 0x80) != 0 ? 0x84 - t : t - 0x84)
    }

    static let aLawEncodeTable: [UInt8] = (0..<8192).map { referenceALaw13($0 - 4096) }
    static let muLawEncodeTable: [UInt8] = (0..<16384).map { referenceMuLaw14($0 - 8192) }
    static let aLawDecodeTable: [Int16] = (0..<256).map { referenceALawDecode(UInt8($0)) }
    static let muLawDecodeTable: [Int16] = (0..<256).map { referenceMuLawDecode(UInt8($0)) }

    // The same tables at stable addresses for the per-packet loops (no reference counting).
    nonisolated(unsafe) static let aLawEncodePointer = permanent(aLawEncodeTable)
    nonisolated(unsafe) static let muLawEncodePointer = permanent(muLawEncodeTable)
    nonisolated(unsafe) static let aLawDecodePointer = permanent(aLawDecodeTable)
    nonisolated(unsafe) static let muLawDecodePointer = permanent(muLawDecodeTable)

    private static func permanent<T>(_ table: [T]) -> UnsafePointer<T> {
        let p = UnsafeMutablePointer<T>.allocate(capacity: table.count)
        p.initialize(from: table, count: table.count)
        return UnsafePointer(p)
    }
}
