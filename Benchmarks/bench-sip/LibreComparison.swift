import CLibre
import SIPCore

/// SIPCore against libre's `sip_msg_decode` (Debian libre-dev) on one corpus, in one run, on one
/// thread: libre decodes the Request-URI, the top Via, From/To as whole name-addrs (display name,
/// URI, parameters, tag), CSeq, Call-ID, Content-Type, and keeps Content-Length, Max-Forwards and
/// Expires as spans; its pass also decodes the first Contact as a libre user must
/// (`sip_addr_decode`). The typed pass here parses and then reads the same fields through the
/// public accessors — `from()`, `to()` and `contacts()` as typed name-addrs, numbers as numbers,
/// the way a transaction and dialog layer read them — and the lazy pass only parses. Only messages both parsers
/// accept are timed. The three passes alternate inside each of the 5 runs, so a load change on
/// the shared machine hits all three alike; the best run of each counts.
enum LibreComparison {
    /// The fields libre decodes eagerly, read as a SIP layer reads them; returns a checksum.
    @inline(never)
    static func readTyped(_ message: SIPMessage) -> Int {
        var n = 0
        switch message {
        case .request(let request):
            let uri = request.uri
            n &+= uri.host?.address.utf8.count ?? 0
            n &+= uri.user?.utf8.count ?? 0
            n &+= Int(uri.port ?? 0) &+ uri.parameters.count
        case .response(let response):
            n &+= response.statusCode
        }
        let headers = message.headers
        if let via = (try? headers.topVia()) ?? nil {
            n &+= via.transport.token.utf8.count &+ via.host.address.utf8.count &+ Int(via.port ?? 0)
            n &+= via.branch?.utf8.count ?? 0
        }
        n &+= readAddress((try? headers.from()) ?? nil)
        n &+= readAddress((try? headers.to()) ?? nil)
        n &+= readAddress(((try? headers.contacts()) ?? nil)?.first?.address)
        if let cseq = (try? headers.cseq()) ?? nil { n &+= Int(cseq.sequence) &+ cseq.method.rawValue.utf8.count }
        n &+= headers.callID?.utf8.count ?? 0
        n &+= headers.contentType?.utf8.count ?? 0
        n &+= ((try? headers.contentLength()) ?? nil) ?? 0
        n &+= ((try? headers.maxForwards()) ?? nil) ?? 0
        n &+= Int(((try? headers.expires()) ?? nil) ?? 0)
        return n
    }

    /// What a dialog layer reads of a name-addr (RFC 3261 §12.1: remote URI and tag; Contact for
    /// the remote target), as libre's pass reads it.
    @inline(__always)
    static func readAddress(_ address: SIPNameAddress?) -> Int {
        guard let address else { return 0 }
        var n = address.displayName?.utf8.count ?? 0
        n &+= address.uri.user?.utf8.count ?? 0
        n &+= address.uri.host?.address.utf8.count ?? 0
        n &+= Int(address.uri.port ?? 0) &+ address.uri.parameters.count
        n &+= address.parameters.count &+ (address.tag?.utf8.count ?? 0)
        return n
    }

    struct Result {
        var messages = 0
        var rejectedByLibre = 0
        var rejectedBySIPCore = 0
        var libre = 0.0
        var lazy = 0.0
        var typed = 0.0
    }

    /// The corpus as both parsers take it: our byte arrays and libre's buffers, made once.
    struct Prepared: ~Copyable {
        var ours = [[UInt8]]()
        var theirs = [OpaquePointer]()
        var rejectedByLibre = 0
        var rejectedBySIPCore = 0

        init(_ corpus: [(name: String, bytes: [UInt8])]) {
            for (_, bytes) in corpus {
                let parsed = try? SIPMessage(parsing: bytes)
                guard let buffer = bytes.withUnsafeBufferPointer({ astra_libre_buffer($0.baseAddress, $0.count) })
                else { continue }
                let libreOK = astra_libre_decode(buffer) != 0
                if !libreOK { rejectedByLibre += 1 }
                if parsed == nil { rejectedBySIPCore += 1 }
                guard libreOK, parsed != nil else {
                    astra_libre_release(buffer)
                    continue
                }
                ours.append(bytes)
                theirs.append(OpaquePointer(buffer))
            }
        }

        deinit { for buffer in theirs { astra_libre_release(UnsafeMutablePointer(buffer)) } }

        func pass(_ kind: Pass) -> Int {
            var n = 0
            switch kind {
            case .libre:
                for buffer in theirs { n &+= Int(truncatingIfNeeded: astra_libre_decode(UnsafeMutablePointer(buffer))) }
            case .lazy:
                for bytes in ours { if let m = try? SIPMessage(parsing: bytes) { n &+= m.headers.count } }
            case .typed:
                for bytes in ours { if let m = try? SIPMessage(parsing: bytes) { n &+= readTyped(m) } }
            }
            return n
        }
    }

    enum Pass: String, CaseIterable { case libre, lazy, typed }

    static func run(corpus: [(name: String, bytes: [UInt8])], targetSeconds: Double = 0.25) -> Result {
        let prepared = Prepared(corpus)
        var result = Result()
        result.rejectedByLibre = prepared.rejectedByLibre
        result.rejectedBySIPCore = prepared.rejectedBySIPCore
        result.messages = prepared.ours.count
        guard result.messages > 0 else { return result }
        // Rounds so that one pass of libre takes about `targetSeconds` of CPU.
        let probeStart = threadCPUSeconds()
        sink &+= prepared.pass(.libre)
        let probe = max(threadCPUSeconds() - probeStart, 1e-6)
        let rounds = max(1, Int(targetSeconds / probe))
        func rate(_ kind: Pass) -> Double {
            let start = threadCPUSeconds()
            for _ in 0..<rounds { sink &+= prepared.pass(kind) }
            return Double(rounds * result.messages) / (threadCPUSeconds() - start)
        }
        for _ in 0..<5 {
            result.libre = max(result.libre, rate(.libre))
            result.lazy = max(result.lazy, rate(.lazy))
            result.typed = max(result.typed, rate(.typed))
        }
        return result
    }

    /// `--pass KIND --rounds N`: only N passes of one kind over the corpus, nothing printed but
    /// the message count — for counting instructions under valgrind (scripts/bench-sip-instructions.sh),
    /// a figure the machine's load does not move.
    static func passOnly(corpus: [(name: String, bytes: [UInt8])], kind: Pass, rounds: Int) -> Int {
        let prepared = Prepared(corpus)
        for _ in 0..<rounds { sink &+= prepared.pass(kind) }
        return prepared.ours.count
    }
}
