/// Ports for test peers that cannot bind port 0 themselves (Kamailio, rtpengine, sipp, a media
/// port named on a tool's command line): random, but below the kernel's ephemeral range
/// (Linux `ip_local_port_range` is 32768–60999), so a port the kernel hands to some client
/// socket meanwhile can never be the one a test peer is told to bind. A test must still check
/// that its peer listens (the peer scripts wait for an answer; tools' own ports are bound by
/// the tool) and retry elsewhere when the bind fails.
public enum TestPorts {
    /// Where test peers are placed: above the well-known and registered ports most often
    /// used by daemons, below the ephemeral range.
    public static let range: ClosedRange<UInt16> = 20_000...32_000

    /// A random port in `range` that is a multiple of `alignment` (e.g. 2 for an RTP/RTCP pair,
    /// 4 for Kamailio's four listeners), with `span` ports from it all inside `range`.
    public static func random(in range: ClosedRange<UInt16> = range, alignment: UInt16 = 1, span: UInt16 = 1)
        -> UInt16
    {
        let last = range.upperBound - (span - 1)
        let port = UInt16.random(in: range.lowerBound...last)
        let aligned = port / alignment * alignment
        return aligned < range.lowerBound ? aligned + alignment : aligned
    }
}
