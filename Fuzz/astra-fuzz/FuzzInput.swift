/// Splits one fuzz input into the pieces a target needs, in the manner of LLVM's
/// `FuzzedDataProvider`: every read succeeds (zeros or empty once the bytes run out), so any
/// input is a valid program for the target and mutations stay meaningful.
struct FuzzInput {
    let bytes: [UInt8]
    private(set) var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }
    var remaining: Int { max(0, bytes.count - index) }

    /// The next byte, 0 at the end.
    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A big-endian 16-bit value.
    mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    /// A big-endian 32-bit value.
    mutating func uint32() -> UInt32 { UInt32(uint16()) << 16 | UInt32(uint16()) }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// `count` bytes (fewer at the end).
    mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + max(0, count))
        defer { index = end }
        return index < end ? Array(bytes[index..<end]) : []
    }

    /// A piece preceded by its 16-bit big-endian length: the framing of multi-datagram seeds
    /// (``FuzzInput/framed(_:)`` writes it).
    mutating func framed() -> [UInt8] { bytes(Int(uint16())) }

    /// Everything left.
    mutating func rest() -> [UInt8] { bytes(remaining) }

    /// Pieces in the ``framed()`` layout, each after its 16-bit length.
    static func framed(_ pieces: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for p in pieces {
            let n = min(p.count, 0xFFFF)
            out += [UInt8(n >> 8), UInt8(n & 0xFF)]
            out += p.prefix(n)
        }
        return out
    }
}
