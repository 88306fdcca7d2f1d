// sip-message: parse a SIP message, print it byte-exact, then edit it (RFC 3261 §7, §16.6).
// Usage: sip-message FILE   (a message with CRLF line ends; `-` reads standard input)
import SIPCore

#if canImport(Glibc)
    import Glibc
#endif

/// One line on standard error (file descriptor 2: the C `stderr` global is not concurrency-safe).
func say(_ message: String) {
    let line = Array("sip-message: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String, _ code: Int32) -> Never {
    say(message)
    exit(code)
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else { fail("usage: sip-message FILE (or - for standard input)", 64) }
// Standard input or a file, read through its descriptor, at most 64 KiB (RFC 3261 §18.1.1 bounds UDP far lower).
let fd = arguments[1] == "-" ? 0 : open(arguments[1], O_RDONLY)
guard fd >= 0 else { fail("cannot open \(arguments[1])", 64) }
var bytes: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 4096)
while case let n = read(fd, &chunk, chunk.count), n > 0 {
    bytes += chunk[..<n]
    if bytes.count > 65_536 { fail("the message is larger than 64 KiB", 64) }
}

// Parse: a typed error with the offset and the header at fault, never a trap.
let message: SIPMessage
do {
    message = try SIPMessage(parsing: bytes)
} catch {
    fail("not a SIP message: \(error)", 1)
}
guard var request = message.request else { fail("a response; this example edits requests", 1) }

// Unedited, the serializer gives back exactly the bytes it parsed.
let unedited = request.serialized()
print(String(decoding: unedited, as: UTF8.self), terminator: "")
print("-- byte-exact: \(unedited == bytes)")

// Read typed headers, then edit as a proxy would before forwarding (RFC 3261 §16.6 steps 3, 8).
let via = try? request.headers.topVia()
print("-- \(request.method) \(request.uri) call-id \(request.headers.callID ?? "-") via \(via.map { "\($0.host)" } ?? "-")")
let hops = Int(request.headers[.maxForwards] ?? "70") ?? 70
guard hops > 0 else { fail("Max-Forwards is 0: a proxy answers 483 Too Many Hops", 1) }
request.headers.set(.maxForwards, String(hops - 1))
request.headers.insert(.via, "SIP/2.0/UDP proxy.example.com;branch=z9hG4bK-example-1", at: 0)
print("-- edited:")
print(String(decoding: request.serialized(), as: UTF8.self), terminator: "")
