import Foundation

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


/// A TCP port on 127.0.0.1 that refuses every connection while this value lives: a socket bound
/// to port 0 (the kernel picks a free port) that never listens, so a connect gets a reset
/// (ECONNREFUSED) at once and nothing else can bind the port meanwhile. For "the server is down"
/// tests, where a random "probably free" port may be some other test's listening peer.
public final class RefusingTCPPort: Sendable {
    public let port: UInt16
    private let fd: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestPortError("socket(): errno \(errno)") }
        guard let port = TestPorts.bindAnyLoopbackPort(fd) else {
            close(fd)
            throw TestPortError("bind 127.0.0.1:0: errno \(errno)")
        }
        self.fd = fd
        self.port = port
    }

    deinit { close(fd) }
}

public struct TestPortError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension TestPorts {
    /// A UDP port on 127.0.0.1 with nothing bound to it: the kernel picks a free port for a socket
    /// that is closed at once. The port is in the ephemeral range, where no test peer is placed
    /// (``range``) and the kernel does not soon hand out the same port again, so "nothing
    /// answers there" holds for a test's length. For a peer that must not exist (a relay that is
    /// down); a port that must refuse TCP is ``RefusingTCPPort``.
    public static func unboundUDP() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestPortError("socket(): errno \(errno)") }
        defer { close(fd) }
        guard let port = bindAnyLoopbackPort(fd) else { throw TestPortError("bind 127.0.0.1:0: errno \(errno)") }
        return port
    }

    /// Binds `fd` to 127.0.0.1:0; returns the port the kernel chose.
    public static func bindAnyLoopbackPort(_ fd: Int32) -> UInt16? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }
}

extension TestPorts {
    /// Whether some socket is bound to UDP `port` (any address), from /proc/net/udp and udp6: a
    /// peer that cannot bind port 0 (sipp, rtpengine) is up once its port shows there. Reading
    /// /proc never takes the port, where a probe bind would race the peer's own bind.
    public static func udpBound(_ port: UInt16) -> Bool {
        procNetPorts(["udp", "udp6"]).contains { $0.port == port }
    }

    /// Whether some socket listens on TCP `port` (state LISTEN in /proc/net/tcp or tcp6).
    public static func tcpListening(_ port: UInt16) -> Bool {
        procNetPorts(["tcp", "tcp6"]).contains { $0.port == port && $0.state == 0x0A }
    }

    /// A port in `range` (aligned, `span` ports from it) where no UDP socket is bound now, for a
    /// peer that is told its port; the peer must still be checked up (``udpBound(_:)``), and
    /// started elsewhere if it never binds.
    public static func freeUDP(in range: ClosedRange<UInt16> = range, alignment: UInt16 = 1, span: UInt16 = 1)
        -> UInt16
    {
        let bound = Set(procNetPorts(["udp", "udp6"]).map(\.port))
        var port = random(in: range, alignment: alignment, span: span)
        for _ in 0..<50 where (0..<span).contains(where: { bound.contains(port + $0) }) {
            port = random(in: range, alignment: alignment, span: span)
        }
        return port
    }

    /// (local port, state, receive queue) of every socket in /proc/net/`name`
    /// (`sl local_address rem_address st tx_queue:rx_queue …`).
    static func procNetPorts(_ names: [String]) -> [(port: UInt16, state: UInt8, receiveQueue: Int)] {
        names.flatMap { name -> [(port: UInt16, state: UInt8, receiveQueue: Int)] in
            let text = (try? String(contentsOfFile: "/proc/net/" + name, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").dropFirst().compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count > 4, let colon = fields[1].lastIndex(of: ":"),
                    let port = UInt16(fields[1][fields[1].index(after: colon)...], radix: 16),
                    let state = UInt8(fields[3], radix: 16),
                    let queue = fields[4].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                else { return nil }
                return (port, state, queue)
            }
        }
    }
}
