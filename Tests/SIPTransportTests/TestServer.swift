import Foundation
import Glibc

@testable import SIPTransport

/// A tiny blocking TCP server on 127.0.0.1 for one connection, run on its own thread: the
/// test gives a script (read, write, close) — used to play a misbehaving peer or a WebSocket
/// server that answers without the `sip` subprotocol.
final class TestServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let done = DispatchSemaphore(value: 0)

    /// What the peer does once a client connected.
    struct Peer {
        let fd: Int32
        /// Reads until `marker` was seen (or EOF / 30 s: a starved client on a loaded machine); returns everything read.
        @discardableResult
        func read(until marker: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            var tv = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            while !contains(out, marker) {
                let n = Glibc.read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                out += buffer[0..<n]
            }
            return out
        }
        /// One read (up to 4 KiB); empty on EOF, error or 30 s without data.
        @discardableResult
        func readSome() -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var tv = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            let n = Glibc.read(fd, &buffer, buffer.count)
            return n > 0 ? Array(buffer[0..<n]) : []
        }
        func write(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                if n <= 0 { return }
                offset += n
            }
        }
        func write(_ text: String) { write(Array(text.utf8)) }
        /// Waits until the client closes (or 30 s).
        func waitForClose() { read(until: [0xFF, 0xFE, 0xFD, 0xFC, 0xFB]) }

        private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
            guard haystack.count >= needle.count else { return false }
            for i in 0...(haystack.count - needle.count) where Array(haystack[i..<(i + needle.count)]) == needle {
                return true
            }
            return false
        }
    }

    init(ipv6: Bool = false, _ script: @escaping @Sendable (Peer) -> Void) throws {
        let sock = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        listener = sock
        var one: Int32 = 1
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if ipv6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_addr = in6addr_loopback
            let bound = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(sock, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
            guard bound == 0, listen(sock, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            _ = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &length) }
            }
            port = UInt16(bigEndian: addr.sin6_port)
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(sock, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0, listen(sock, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &length) }
            }
            port = UInt16(bigEndian: addr.sin_port)
        }
        let done = done
        Thread.detachNewThread {
            let fd = accept(sock, nil, nil)
            if fd >= 0 {
                script(Peer(fd: fd))
                Glibc.close(fd)
            }
            done.signal()
        }
    }

    private let finished = NSLock()
    private var isFinished = false

    /// Waits for the script to finish, then closes the listener (once; later calls return at once).
    func finish() {
        finished.lock()
        defer { finished.unlock() }
        guard !isFinished else { return }
        isFinished = true
        _ = done.wait(timeout: .now() + 40)
        Glibc.close(listener)
    }

    /// The RFC 6455 §4.2.2 server answer to a client request.
    static func webSocketAnswer(to request: [UInt8], subprotocol: String?) -> String {
        let text = String(decoding: request, as: UTF8.self)
        let key =
            text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        var answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        answer += "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(for: key))\r\n"
        if let subprotocol { answer += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        return answer + "\r\n"
    }
}
