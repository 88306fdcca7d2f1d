import AstraTestSupport
import Foundation
import Testing
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A child started by ``ProcessSpawn`` holds its three standard streams and nothing else, even
/// when the parent holds descriptors that are not close-on-exec (decisions D49).
@Suite struct ProcessSpawnTests {
    /// One line of `ls -l /proc/self/fd`: the descriptor's number and what it points at.
    struct Entry: Equatable {
        var number: String
        var target: String
    }

    static func entries(_ listing: String) -> [Entry] {
        listing.split(separator: "\n").compactMap { line in
            guard let arrow = line.range(of: " -> ") else { return nil }  // "total 0"
            let number = line[..<arrow.lowerBound].split(separator: " ").last.map(String.init) ?? ""
            return Entry(number: number, target: String(line[arrow.upperBound...]))
        }
    }

    static func target(_ fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        return n > 0 ? String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    @Test(.timeLimit(.minutes(1)))
    func aChildSeesOnlyItsStandardStreams() async throws {
        let dir = NSTemporaryDirectory() + "astra-spawn-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Opened as a careless library would: no O_CLOEXEC, no SOCK_CLOEXEC. A key file, a
        // listening socket and a socketpair, one end of which is given to the child as stdin.
        let file = open(dir + "/key.pem", O_RDWR | O_CREAT, 0o600)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var loopback = sockaddr_in()
        loopback.sin_family = sa_family_t(AF_INET)
        loopback.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &loopback) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(bound == 0 && listen(listener, 1) == 0)
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let ours = [file, listener, pair[0], pair[1]]
        defer { for fd in ours where fd >= 0 { close(fd) } }
        for fd in ours { #expect(fd > 2 && fcntl(fd, F_GETFD) & FD_CLOEXEC == 0, "fd \(fd) would be inherited") }

        let out = URL(fileURLWithPath: dir + "/fd.txt").resolvingSymlinksInPath().path  // as readlink says
        let pid = try ProcessSpawn.spawn(
            ["/bin/sh", "-c", "exec ls -l /proc/self/fd"], environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"],
            stdin: .descriptor(pair[1]), stdout: .file(out, truncate: true), stderr: .standardOutput)
        var raw: Int32 = 0
        // Generous: in the parallel phase on two busy cores the suite took 33 s to end.
        let ended = await eventually(timeout: .seconds(50), every: .milliseconds(10)) {
            waitpid(pid, &raw, WNOHANG) == pid
        }
        try #require(ended, "ls did not end")
        #expect(ProcessSpawn.exitStatus(raw) == 0)
        let listing = try String(contentsOfFile: out, encoding: .utf8)
        // Exactly four: 0 is the socketpair end given as stdin (dup2'ed there; its own number
        // is closed), 1 and 2 the output file, and 3 the directory ls opened itself to list
        // /proc/self/fd — number 3 because it was the lowest free one. `sh -c 'exec ls'` keeps
        // the pid, so that directory is /proc/<pid>/fd. None of the four descriptors above.
        #expect(
            Self.entries(listing) == [
                Entry(number: "0", target: Self.target(pair[1])), Entry(number: "1", target: out),
                Entry(number: "2", target: out), Entry(number: "3", target: "/proc/\(pid)/fd"),
            ], "\(listing)")
    }
}
