import SIPCore

/// The SIPCore datagram parser, typed headers, serializer and stream framer, on raw bytes
/// (RFC 3261 §7, §18.3, §20, §25). Seeds: the RFC 4475, 5118 and 7118 vectors.
///
/// Invariants: the serialization of a parsed message re-parses and is idempotent; an edited
/// message still parses with the edit in place and the body unchanged; rewriting the top Via
/// with its own value keeps the branch; a message framed from a stream (in chunks whose size
/// the input picks) is also a datagram with the same bytes; the framer's buffer stays bounded.
enum SIPMessageTarget {
    /// Small limits so the fuzzer reaches every limit check quickly.
    static let limits = SIPParserLimits(
        maxHeaderCount: 40, maxLineLength: 512, maxHeaderSectionSize: 4096, maxBodySize: 4096)

    static let target = FuzzTarget(
        name: "sip-message",
        summary: "SIP datagram parser, typed headers, serializer round trip, stream framer (RFC 3261)",
        maxLength: 8192, dictionary: "sip",
        seeds: { SeedFiles.sipMessages() + SeedFiles.all(in: "Tests/SIPTransportTests/Vectors", suffix: ".dat") },
        run: run)

    static func run(_ bytes: [UInt8]) {
        if let message = try? SIPMessage(parsing: bytes, limits: limits) {
            checkRoundTrip(message)
        }
        frameStream(bytes)
        if bytes.count < 1024 {
            let text = String(decoding: bytes, as: UTF8.self)
            if let uri = try? SIPURI(parsing: text) { _ = uri.description }
            _ = SIPHeaderName(text).canonicalName
        }
    }

    static func checkRoundTrip(_ message: SIPMessage) {
        SIPTypedHeaders.exercise(message)
        let wire = message.serialized()
        guard let again = try? SIPMessage(parsing: wire, limits: limits) else {
            fatalError("invariant broken: serialized message does not re-parse")
        }
        invariant(again.serialized() == wire, "serialization is not idempotent")
        // An edited message still parses, with the edit in place (default limits: an added
        // header may legitimately push a message over the small fuzz limits).
        var edited = message
        var headers = edited.headers
        headers.add("X-Fuzz", "1")
        _ = headers.remove(.via)
        edited.headers = headers
        guard let reparsed = try? SIPMessage(parsing: edited.serialized()) else {
            fatalError("invariant broken: edited message does not re-parse")
        }
        invariant(reparsed.headers[SIPHeaderName("X-Fuzz")] == "1", "added header lost")
        invariant(reparsed.bodyBytes == message.bodyBytes, "body changed by a header edit")
        // Rewriting the top Via with its own parsed value keeps the message parseable.
        var viaEdited = message
        var viaHeaders = viaEdited.headers
        if let top = try? viaHeaders.topVia() {
            invariant((try? viaHeaders.setTopVia(top)) != nil, "setTopVia with the parsed top Via failed")
            viaEdited.headers = viaHeaders
            guard let again = try? SIPMessage(parsing: viaEdited.serialized()) else {
                fatalError("invariant broken: message with rewritten top Via does not re-parse")
            }
            invariant((try? again.headers.topVia()?.branch) == top.branch, "top Via branch changed")
            _ = try? viaHeaders.removeTopVia()
        }
    }

    /// Stream framing in chunks whose size comes from the first byte.
    static func frameStream(_ bytes: [UInt8]) {
        var framer = SIPStreamFramer(limits: limits)
        let chunk = bytes.isEmpty ? 1 : Int(bytes[0] % 23) + 1
        var i = 0
        outer: while i < bytes.count {
            framer.append(bytes[i..<min(i + chunk, bytes.count)])
            i += chunk
            while true {
                do {
                    guard let out = try framer.next() else { break }
                    if case .message(let m) = out {
                        SIPTypedHeaders.exercise(m)
                        let wire = m.serialized()
                        guard let datagram = try? SIPMessage(parsing: wire, limits: limits) else {
                            fatalError("invariant broken: framed message does not parse as a datagram")
                        }
                        invariant(datagram.serialized() == wire, "framed message re-serializes differently")
                    }
                } catch {
                    break outer
                }
            }
            invariant(
                framer.bufferedByteCount <= limits.maxHeaderSectionSize + limits.maxBodySize + 64,
                "framer buffer unbounded")
        }
    }
}
