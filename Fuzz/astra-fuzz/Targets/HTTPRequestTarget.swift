import HTTPLite
import WakeGateway

/// The HTTPLite request parser (RFC 9112) as the wake gateway's token API receives requests,
/// and the API's request validation (``WakeAPIRequest``). The first byte picks the chunk size;
/// the rest is the byte stream of one connection (pipelined requests allowed). Seeds: requests of
/// every API endpoint, good and refused.
///
/// Invariants: the requests and the failure do not depend on the chunking; the buffer never
/// holds more than the limits allow; an error's detail and every refusal we would send are one
/// line (no header or response splitting from a reflected path or field).
enum HTTPRequestTarget {
    static let limits = HTTPParserLimits(maxHeaderBytes: 2048, maxHeaderCount: 16, maxBodyBytes: 4096)

    static let target = FuzzTarget(
        name: "http-request",
        summary: "HTTPLite request parser (pipelining, any chunking) and the gateway token API validation (RFC 9112)",
        maxLength: 16_384, dictionary: "http",
        seeds: seeds, run: run)

    struct Outcome: Equatable {
        var requests: [HTTPRequest] = []
        var failed = false
    }

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let chunk = Int(input.byte()) % 64 + 1
        let stream = input.rest()
        let whole = parse(stream, chunk: stream.count + 1)
        let chunked = parse(stream, chunk: chunk)
        invariant(whole == chunked, "requests depend on chunking (\(chunk)-byte chunks)")
        for request in whole.requests {
            _ = (request.keepAlive, request.header("Host"), request.query, request.path)
            switch WakeAPIRequest.parse(request) {
            case .reject(let response): checkOneLine(response)
            case .request: break
            }
        }
    }

    static func parse(_ stream: [UInt8], chunk: Int) -> Outcome {
        var parser = HTTPRequestParser(limits: limits)
        var outcome = Outcome()
        var i = 0
        feeding: repeat {
            parser.append(stream[i..<min(i + chunk, stream.count)])
            i += chunk
            while true {
                do {
                    guard case .request(let request) = try parser.next() else { break }
                    outcome.requests.append(request)
                } catch {
                    invariant(
                        !error.detail.contains("\r") && !error.detail.contains("\n"),
                        "parse error detail is not one line")
                    checkOneLine(HTTPResponse.error(error))
                    outcome.failed = true
                    break feeding
                }
            }
            invariant(
                parser.bufferedCount <= limits.maxHeaderBytes + limits.maxBodyBytes + chunk + 4,
                "parser buffered \(parser.bufferedCount) bytes")
        } while i < stream.count
        return outcome
    }

    /// A refusal is a status line, headers, and (text/plain) a single line of body.
    static func checkOneLine(_ response: HTTPResponse) {
        let wire = response.serialized(keepAlive: false)
        guard let end = SeedFiles.find([13, 10, 13, 10], in: wire) else {
            fatalError("invariant broken: response without a header end")
        }
        let head = wire[..<end]
        let lines = head.split(separator: 10, omittingEmptySubsequences: false)
        for line in lines {
            let body = line.last == 13 ? line.dropLast() : line
            invariant(!body.contains(13) && !body.contains(10), "a response header line holds CR or LF")
        }
        invariant(
            head.filter { $0 == 10 }.count == response.headers.filter {
                $0.name.lowercased() != "content-length" && $0.name.lowercased() != "connection"
            }.count + 2,
            "response head has extra lines")
        if response.header("Content-Type")?.hasPrefix("text/plain") == true {
            let body = wire[(end + 4)...]
            invariant(
                body.filter { $0 == 10 }.count == 1 && body.last == 10 && !body.contains(13),
                "a text refusal is not one line")
        }
    }

    static func seeds() -> [[UInt8]] {
        let requests = [
            "POST /api/v1/users/voip-push-token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 131\r\n\r\n{\"asterisk_endpoint\":\"1002\",\"token\":\"00112233445566778899aabbccddeeff\",\"environment\":\"sandbox\",\"bundle_id\":\"com.example\",\"platform\":\"ios\"}",
            "GET /api/v1/users/voip-push-status?asterisk_endpoint=1002&token=00112233445566778899aabbccddeeff HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            "DELETE /api/v1/users/voip-push-token?asterisk_endpoint=1002 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMDAyIn0.c2ln\r\n\r\n",
            "POST /api/v1/users/voip-push-ack HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 28\r\nConnection: close\r\n\r\n{\"push_id\":\"p-0123456789ab\"}",
            "GET /nowhere%0D%0AX-Evil:%201 HTTP/1.0\r\n\r\n",
            "PUT /api/v1/users/voip-push-token HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
        ]
        let bytes = requests.map { Array($0.utf8) }
        return bytes.map { [0] + $0 } + [[7] + bytes.joined(), [0] + bytes[1] + bytes[3]]
    }
}
