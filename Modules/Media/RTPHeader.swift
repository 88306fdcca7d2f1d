/// An RTP fixed header with its CSRC list and header extension (RFC 3550 §5.1, §5.3.1).
///
/// ```
///  0                   1                   2                   3
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// |                           timestamp                           |
/// |           synchronization source (SSRC) identifier            |
/// |            contributing source (CSRC) identifiers ...         |
/// ```
public struct RTPHeader: Sendable, Hashable {
    /// RFC 3550 §5.3.1 header extension: a 16-bit profile value and 32-bit-aligned data.
    public struct Extension: Sendable, Hashable {
        public var profile: UInt16
        /// Extension data; its length must be a multiple of 4.
        public var data: [UInt8]
        public init(profile: UInt16, data: [UInt8]) {
            self.profile = profile
            self.data = data
        }
    }

    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// Contributing sources, at most 15 (RFC 3550 §5.1 CC).
    public var csrcs: [UInt32]
    public var headerExtension: Extension?

    public init(
        marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        csrcs: [UInt32] = [], headerExtension: Extension? = nil
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
    }

    /// Size of the serialized header in bytes.
    public var size: Int { 12 + 4 * csrcs.count + (headerExtension.map { 4 + $0.data.count } ?? 0) }

    /// Writes the header to the start of `buffer` (which must hold ``size`` bytes) with the
    /// padding bit as given; returns the number of bytes written.
    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer, padding: Bool = false) -> Int {
        precondition(csrcs.count <= 15, "RTPHeader: more than 15 CSRCs")
        precondition(buffer.count >= size, "RTPHeader.write: buffer too small")
        buffer[0] = 0x80 | (padding ? 0x20 : 0) | (headerExtension != nil ? 0x10 : 0) | UInt8(csrcs.count)
        buffer[1] = (marker ? 0x80 : 0) | (payloadType & 0x7F)
        buffer.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        buffer.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        var offset = 12
        for csrc in csrcs {
            buffer.storeBytes(of: csrc.bigEndian, toByteOffset: offset, as: UInt32.self)
            offset += 4
        }
        if let ext = headerExtension {
            precondition(ext.data.count % 4 == 0, "RTPHeader: extension length not a multiple of 4")
            buffer.storeBytes(of: ext.profile.bigEndian, toByteOffset: offset, as: UInt16.self)
            buffer.storeBytes(of: UInt16(ext.data.count / 4).bigEndian, toByteOffset: offset + 2, as: UInt16.self)
            offset += 4
            for byte in ext.data {
                buffer[offset] = byte
                offset += 1
            }
        }
        return offset
    }

    /// Parses the header of an RTP packet; returns it with the payload's byte range (padding
    /// removed, RFC 3550 §5.1 P bit). Throws ``MediaError/Code/malformedPacket``.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(MediaError) -> (
        header: RTPHeader, payload: Range<Int>
    ) {
        guard bytes.count >= 12 else { throw MediaError(.malformedPacket, "RTP shorter than 12 bytes") }
        let b0 = bytes[0]
        guard b0 >> 6 == 2 else { throw MediaError(.malformedPacket, "RTP version \(b0 >> 6)") }
        let cc = Int(b0 & 0x0F)
        var offset = 12 + 4 * cc
        guard bytes.count >= offset else { throw MediaError(.malformedPacket, "RTP CSRC list truncated") }
        var header = RTPHeader(
            marker: bytes[1] & 0x80 != 0, payloadType: bytes[1] & 0x7F,
            sequenceNumber: UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self)),
            timestamp: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
            ssrc: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
        if cc > 0 {
            header.csrcs = (0..<cc).map {
                UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 12 + 4 * $0, as: UInt32.self))
            }
        }
        if b0 & 0x10 != 0 {
            guard bytes.count >= offset + 4 else {
                throw MediaError(.malformedPacket, "RTP extension header truncated")
            }
            let profile = UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let words = Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)))
            offset += 4
            guard bytes.count >= offset + 4 * words else {
                throw MediaError(.malformedPacket, "RTP extension truncated")
            }
            header.headerExtension = Extension(profile: profile, data: Array(bytes[offset..<(offset + 4 * words)]))
            offset += 4 * words
        }
        var end = bytes.count
        if b0 & 0x20 != 0 {
            let pad = Int(bytes[bytes.count - 1])
            guard pad >= 1, end - pad >= offset else {
                throw MediaError(.malformedPacket, "RTP padding count \(pad) invalid")
            }
            end -= pad
        }
        return (header, offset..<end)
    }
}
