// libFuzzer entry for the SIPCore parser, typed headers, serializer and stream framer.
// Built by scripts/fuzz.sh with swiftc over Modules/SIPCore/*.swift (same module: internal API visible).
// Every invariant below is a `precondition`: a violation is reported by libFuzzer as a crash.

/// Small limits so the fuzzer reaches every limit check quickly.
private let limits = SIPParserLimits(
    maxHeaderCount: 40, maxLineLength: 512, maxHeaderSectionSize: 4096,
    maxBodySize: 4096)

/// Touches every typed accessor; errors are fine, traps are not.
private func exercise(_ message: SIPMessage) {
    let h = message.headers
    _ = try? h.vias()
    _ = try? h.topVia()?.rport
    _ = try? h.from()?.description
    _ = try? h.to()?.tag
    _ = try? h.cseq()
    _ = try? h.contacts().map { ($0.expires, $0.instance, $0.regID, $0.pushPRID, $0.description) }
    _ = try? h.routes().map(\.uri.description)
    _ = try? h.recordRoutes()
    _ = try? h.maxForwards()
    _ = try? h.contentLength()
    _ = try? h.expires()
    _ = try? h.minExpires()
    _ = h.allow
    _ = h.supported
    _ = h.callID
    for field in h { _ = (field.name, field.value, field.rawValue) }
    if case .request(let r) = message { _ = (r.uri.description, r.rawURI) }
    if case .response(let r) = message { _ = r.reasonPhrase }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func sipFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    // 1. Whole-message parse; serialization is idempotent and re-parses.
    if let message = try? SIPMessage(parsing: bytes, limits: limits) {
        exercise(message)
        let wire = message.serialized()
        guard let again = try? SIPMessage(parsing: wire, limits: limits) else {
            preconditionFailure("serialized message does not re-parse")
        }
        precondition(again.serialized() == wire, "serialization is not idempotent")
        // An edited message still parses, with the edit in place (default limits: an added header
        // may legitimately push a message over the small fuzz limits; fuzz finding 1).
        var edited = message
        var headers = edited.headers
        headers.add("X-Fuzz", "1")
        headers.remove(.via)
        edited.headers = headers
        guard let reparsed = try? SIPMessage(parsing: edited.serialized()) else {
            preconditionFailure("edited message does not re-parse")
        }
        precondition(reparsed.headers[SIPHeaderName("X-Fuzz")] == "1")
        precondition(reparsed.bodyBytes == message.bodyBytes, "body changed by a header edit")
        // Rewriting the top Via with its own parsed value keeps the message parseable.
        var viaEdited = message
        var viaHeaders = viaEdited.headers
        if let top = try? viaHeaders.topVia() {
            guard (try? viaHeaders.setTopVia(top)) != nil else { preconditionFailure("setTopVia failed") }
            viaEdited.headers = viaHeaders
            guard let again = try? SIPMessage(parsing: viaEdited.serialized()) else {
                preconditionFailure("message with rewritten top Via does not re-parse")
            }
            precondition((try? again.headers.topVia()?.branch) == top.branch, "top Via branch changed")
            _ = try? viaHeaders.removeTopVia()
        }
    }

    // 2. Stream framing in chunks whose size comes from the first byte.
    var framer = SIPStreamFramer(limits: limits)
    let chunk = size > 0 ? Int(bytes[0] % 23) + 1 : 1
    var i = 0
    outer: while i < size {
        framer.append(bytes[i..<min(i + chunk, size)])
        i += chunk
        while true {
            do {
                guard let out = try framer.next() else { break }
                if case .message(let m) = out {
                    exercise(m)
                    let wire = m.serialized()
                    // A framed message is also a valid datagram with the same bytes.
                    guard let datagram = try? SIPMessage(parsing: wire, limits: limits) else {
                        preconditionFailure("framed message does not parse as a datagram")
                    }
                    precondition(datagram.serialized() == wire)
                }
            } catch {
                break outer
            }
        }
        precondition(
            framer.bufferedByteCount <= limits.maxHeaderSectionSize + limits.maxBodySize + 64,
            "framer buffer unbounded")
    }

    // 3. The input as a URI and as a header name.
    if size < 1024 {
        let text = String(decoding: bytes, as: UTF8.self)
        if let uri = try? SIPURI(parsing: text) { _ = uri.description }
        _ = SIPHeaderName(text).canonicalName
    }
    return 0
}
