/// An RTP packet as a value: header plus payload (RFC 3550 §5.1).
///
/// For the per-packet hot path, ``RTPHeader/write(into:padding:)`` and
/// ``RTPHeader/parse(_:)`` work on caller-owned buffers without allocating.
public struct RTPPacket: Sendable, Hashable {
    public var header: RTPHeader
    public var payload: [UInt8]
    /// Padding octets to append when serializing (RFC 3550 §5.1 P bit; 0 = none, max 255).
    public var paddingCount: UInt8

    public init(header: RTPHeader, payload: [UInt8], paddingCount: UInt8 = 0) {
        self.header = header
        self.payload = payload
        self.paddingCount = paddingCount
    }

    /// Parses a packet; padding is removed (``paddingCount`` keeps how much there was).
    public init(parsing bytes: [UInt8]) throws(MediaError) {
        let result: Result<(RTPHeader, Range<Int>), MediaError> = bytes.withUnsafeBytes { raw in
            do throws(MediaError) { return .success(try RTPHeader.parse(raw)) } catch { return .failure(error) }
        }
        let (header, range) = try result.get()
        self.header = header
        self.payload = Array(bytes[range])
        self.paddingCount = header.size + payload.count < bytes.count ? bytes[bytes.count - 1] : 0
    }

    /// The wire form.
    public func serialized() -> [UInt8] {
        let headerSize = header.size
        let total = headerSize + payload.count + Int(paddingCount)
        var out = [UInt8](repeating: 0, count: total)
        out.withUnsafeMutableBytes { raw in
            header.write(into: raw, padding: paddingCount > 0)
            payload.withUnsafeBytes { p in
                UnsafeMutableRawBufferPointer(rebasing: raw[headerSize..<(headerSize + p.count)]).copyMemory(from: p)
            }
            if paddingCount > 0 { raw[total - 1] = paddingCount }
        }
        return out
    }
}

/// RFC 3550 §5.1 / RFC 1982 serial-number arithmetic on 16-bit sequence numbers and 32-bit
/// timestamps, for ordering across wrap-around.
package enum RTPSerial {
    /// True when `a` comes after `b` modulo 2^16.
    @inline(__always)
    public static func isNewer(_ a: UInt16, than b: UInt16) -> Bool { a != b && (a &- b) < 0x8000 }

    /// Signed distance `a - b` modulo 2^16 (in -32768...32767).
    @inline(__always)
    public static func distance(_ a: UInt16, _ b: UInt16) -> Int { Int(Int16(bitPattern: a &- b)) }

    /// Signed distance `a - b` modulo 2^32.
    @inline(__always)
    public static func distance(_ a: UInt32, _ b: UInt32) -> Int { Int(Int32(bitPattern: a &- b)) }
}
