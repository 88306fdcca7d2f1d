import SIPTransport

/// The client side of the RFC 6455 §4.1 opening handshake (``WebSocketHandshake``): the
/// server's HTTP answer, in chunks. The first byte picks the offered subprotocols (`sip`, the
/// RFC 6455 example's `chat, superchat`, or none) and the chunk size; the key is the RFC's
/// example key so the seeds' `Sec-WebSocket-Accept` is right. Seeds: the RFC 6455 and RFC 7118
/// handshake answers.
///
/// Invariants: the outcome does not depend on the chunking; an accepted answer names an offered
/// subprotocol and hands back exactly the bytes after the head; the head limit is kept.
enum WebSocketUpgradeTarget {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let offers: [[String]] = [["sip"], ["chat", "superchat"], []]

    static let target = FuzzTarget(
        name: "websocket-upgrade",
        summary:
            "WebSocket opening handshake answer (HTTP/1.1 101) as the client checks it (RFC 6455 §4.1, RFC 7118 §4)",
        maxLength: 20_000, dictionary: "websocket",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        let protocols = offers[Int(control % 3)]
        let chunk = Int(control / 3) % 17 + 1
        let answer = input.rest()

        let whole = outcome(answer, protocols: protocols, chunk: answer.count + 1)
        let chunked = outcome(answer, protocols: protocols, chunk: chunk)
        invariant(whole == chunked, "handshake outcome depends on chunking")
        if case .accepted(let subprotocol, let leftover) = whole {
            invariant(
                protocols.isEmpty ? subprotocol.isEmpty : protocols.contains(subprotocol),
                "accepted a subprotocol we did not offer")
            invariant(
                answer.count >= leftover.count && Array(answer.suffix(leftover.count)) == leftover,
                "leftover is not the tail of the answer")
        }
    }

    /// The outcome of feeding `answer` in chunks; bytes after the chunk that completed the head
    /// would go to the frame decoder, so they count as leftover too.
    static func outcome(_ answer: [UInt8], protocols: [String], chunk: Int) -> WebSocketHandshake.Outcome {
        var handshake = WebSocketHandshake(host: "sip-ws.example.com", path: "/", key: key, protocols: protocols)
        var i = 0
        var last = WebSocketHandshake.Outcome.needMoreData
        while i < answer.count {
            last = handshake.receive(answer[i..<min(i + chunk, answer.count)])
            i += chunk
            switch last {
            case .needMoreData: continue
            case .accepted(let subprotocol, let leftover):
                return .accepted(subprotocol: subprotocol, leftover: leftover + answer[min(i, answer.count)...])
            case .refused: return last
            }
        }
        return last
    }

    static func seeds() -> [[UInt8]] {
        let sip = SeedFiles.read("Tests/SIPTransportTests/Vectors/rfc7118_4.1_ws_handshake_response.dat")
        var seeds: [[UInt8]] = [[0] + sip, [0] + sip + [0x81, 0x02, 0x4F, 0x4B]]
        let vectors = SeedFiles.json("Tests/SIPTransportTests/Vectors/ws_vectors.json")
        if case .string(let response)? = vectors["rfc6455_handshake"]?["server_response"] {
            seeds.append([1] + Array(response.utf8))
        }
        seeds.append(
            [2]
                + Array(
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
                        .utf8))
        seeds.append([0] + Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8))
        return seeds
    }
}
