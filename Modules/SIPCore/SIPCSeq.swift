/// The CSeq header (RFC 3261 §20.16, §8.1.1.5): a sequence number below 2**32 and a method.
public struct SIPCSeq: Sendable, Hashable, CustomStringConvertible {
    public var sequence: UInt32
    public var method: SIPMethod

    public init(_ sequence: UInt32, _ method: SIPMethod) {
        self.sequence = sequence
        self.method = method
    }

    public var description: String { String(sequence) + " " + method.rawValue }

    /// Scans `1*DIGIT LWS Method`, returning the number and the method's range.
    static func scan(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, base: Int) throws(SIPParseError)
        -> (UInt32, Range<Int>)
    {
        var c = ByteCursor(p, range, base: base, header: .cseq)
        c.skipLWS()
        let number = try c.decimal(max: UInt64(UInt32.max))
        let before = c.i
        c.skipLWS()
        guard c.i > before else { throw c.error(.invalidHeaderValue, "expected LWS after CSeq number") }
        let method = try c.token("method")
        c.skipLWS()
        guard c.atEnd else { throw c.error(.invalidHeaderValue, "unexpected character after CSeq method") }
        return (UInt32(number), method)
    }
}
