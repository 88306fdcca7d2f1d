import SIPCore

/// The bytes of a registration's REGISTERs that do not change between requests on one binding,
/// rendered once (decision D13). Between two requests only the branch, the CSeq number, the
/// Contact/Expires pair (refresh vs. unregister) and the Authorization lines change.
struct RegisterWireTemplate: Sendable {
    let binding: LocalBinding
    /// `REGISTER <Request-URI> SIP/2.0` CRLF `Via: <sent-by and parameters>;branch=`
    let head: [UInt8]
    /// CRLF `Max-Forwards`, `From`, `To`, `Call-ID` lines, then `CSeq: `
    let middle: [UInt8]
    /// The Contact value up to the number of its `expires` parameter.
    let contactPrefix: [UInt8]
    /// `Supported`, `Allow`, `User-Agent` lines.
    let tail: [UInt8]
    /// The Contact URI every request of this template carries (what a 2xx must list, §10.2.4).
    let contactURI: SIPURI
}

extension RegisterRequestBuilder {
    /// Takes the Via prefix for `binding` from another registration on the same binding (the
    /// load engine formats it once for all its lines).
    mutating func shareViaPrefix(_ prefix: String, for binding: LocalBinding) {
        viaCache = (binding, prefix)
    }

    /// The next REGISTER as wire bytes: byte for byte `next(binding:expires:ids:authorization:)
    /// .serialized()` with the same identifiers drawn in the same order (golden-tested in
    /// `RegisterWireGoldenTests`), without building a ``SIPHeaders`` or a String per header.
    /// `authorizationLines` are complete header lines (``DigestClientState``'s byte path).
    mutating func nextWire(
        binding: LocalBinding, expires: UInt32, ids: some IdentifierSource,
        authorizationLines: [UInt8]
    ) -> [UInt8] {
        if wire?.binding != binding { wire = makeWireTemplate(binding: binding) }
        guard let wire else {
            // A binding whose Via or Contact does not end the way the template needs: the
            // normal builder (same bytes, just slower).
            return nextFallback(binding: binding, expires: expires, ids: ids, authorizationLines: authorizationLines)
        }
        cseq &+= 1
        let branch = ids.branch()
        lastBranch = branch
        var out = [UInt8]()
        out.reserveCapacity(
            wire.head.count + wire.middle.count + wire.contactPrefix.count + wire.tail.count
                + authorizationLines.count + 160)
        out.append(contentsOf: wire.head)
        out.append(contentsOf: branch.utf8)
        out.append(contentsOf: wire.middle)
        Self.appendDecimal(cseq, to: &out)
        out.append(contentsOf: " REGISTER\r\nContact: ".utf8)
        out.append(contentsOf: wire.contactPrefix)
        Self.appendDecimal(expires, to: &out)
        out.append(contentsOf: "\r\nExpires: ".utf8)
        Self.appendDecimal(expires, to: &out)
        out.append(contentsOf: "\r\n".utf8)
        out.append(contentsOf: wire.tail)
        out.append(contentsOf: authorizationLines)
        out.append(contentsOf: "Content-Length: 0\r\n\r\n".utf8)
        return out
    }

    private mutating func nextFallback(
        binding: LocalBinding, expires: UInt32, ids: some IdentifierSource,
        authorizationLines: [UInt8]
    ) -> [UInt8] {
        var bytes = next(binding: binding, expires: expires, ids: ids, authorization: []).serialized()
        // The Authorization lines go after User-Agent, before Content-Length (as `next` adds them).
        let contentLength = Array("Content-Length: 0\r\n\r\n".utf8)
        bytes.removeLast(contentLength.count)
        bytes += authorizationLines
        bytes += contentLength
        return bytes
    }

    private func makeWireTemplate(binding: LocalBinding) -> RegisterWireTemplate? {
        let via: String
        if let cached = viaCache, cached.binding == binding {
            via = cached.prefix
        } else {
            guard let prefix = Self.viaPrefix(binding) else { return nil }
            via = prefix
        }
        let contact = contact(binding: binding, expires: 0)
        let contactText = contact.description
        guard contactText.hasSuffix(";expires=0") else { return nil }
        var head = Array("REGISTER \(registrarText) SIP/2.0\r\nVia: ".utf8)
        Self.appendValue(via, to: &head)
        var middle = Array("\r\nMax-Forwards: 70\r\nFrom: ".utf8)
        Self.appendValue(fromValue, to: &middle)
        middle += "\r\nTo: ".utf8
        Self.appendValue(toValue, to: &middle)
        middle += "\r\nCall-ID: ".utf8
        Self.appendValue(callID, to: &middle)
        middle += "\r\nCSeq: ".utf8
        var contactPrefix: [UInt8] = []
        Self.appendValue(String(contactText.dropLast(1)), to: &contactPrefix)
        var tail = Array("Supported: ".utf8)
        tail += (settings.instanceID != nil && settings.regID != nil ? "path, outbound" : "path").utf8
        tail += "\r\nAllow: INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, NOTIFY\r\nUser-Agent: ".utf8
        Self.appendValue(settings.userAgent, to: &tail)
        tail += "\r\n".utf8
        return RegisterWireTemplate(
            binding: binding, head: head, middle: middle, contactPrefix: contactPrefix,
            tail: tail, contactURI: contact.uri)
    }

    /// A header value as ``SIPHeaders/add(_:_:)`` stores it: CR and LF become SP.
    private static func appendValue(_ value: String, to out: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            if bytes.contains(where: { $0 == 13 || $0 == 10 }) {
                for byte in bytes { out.append(byte == 13 || byte == 10 ? 32 : byte) }
            } else {
                out.append(contentsOf: bytes)
            }
        }
    }

    static func appendDecimal(_ value: UInt32, to out: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var v = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[9 - count] = UInt8(truncatingIfNeeded: 48 + v % 10)
                v /= 10
                count += 1
            } while v > 0
            out.append(contentsOf: buffer[(10 - count)...])
        }
    }
}
