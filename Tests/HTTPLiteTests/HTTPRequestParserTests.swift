import Testing

@testable import HTTPLite

@Suite struct HTTPRequestParserTests {
    static let post =
        "POST /api/v1/x?a=1&b=h%C3%A9+llo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: 11\r\n\r\n{\"k\":\"v\"} \n"

    static func parseAll(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) throws -> [HTTPRequest] {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array(text.utf8))
        var out: [HTTPRequest] = []
        while case .request(let request) = try parser.next() { out.append(request) }
        return out
    }

    @Test func wholeRequest() throws {
        let requests = try Self.parseAll(Self.post)
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.path == "/api/v1/x")
        #expect(request.query == ["a": "1", "b": "hé llo"])
        #expect(request.header("content-type") == "application/json")
        #expect(request.text == "{\"k\":\"v\"} \n")
        #expect(request.keepAlive)
    }

    @Test func byteByByteGivesTheSameRequest() throws {
        var parser = HTTPRequestParser()
        var got: [HTTPRequest] = []
        for byte in Self.post.utf8 {
            parser.append([byte])
            if case .request(let r) = try parser.next() { got.append(r) }
        }
        #expect(got == (try Self.parseAll(Self.post)))
    }

    @Test func pipelinedRequestsAndLeadingCRLF() throws {
        let get = "GET /s?asterisk_endpoint=1001 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
        let requests = try Self.parseAll("\r\n" + Self.post + get)
        #expect(requests.map(\.method) == ["POST", "GET"])
        #expect(requests[1].query["asterisk_endpoint"] == "1001")
        #expect(!requests[1].keepAlive)
    }

    @Test func http10KeepAliveOnlyWhenAsked() throws {
        #expect(try Self.parseAll("GET / HTTP/1.0\r\n\r\n")[0].keepAlive == false)
        #expect(try Self.parseAll("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")[0].keepAlive)
    }

    @Test(arguments: [
        ("GET /\r\nHost: h\r\n\r\n", HTTPParseError.Code.badRequestLine, 400),
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .badRequestLine, 400),
        ("GET http://x/ HTTP/1.1\r\nHost: h\r\n\r\n", .badTarget, 400),
        ("GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n", .badTarget, 400),
        ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion, 505),
        ("GET / HTTP/1.1\r\n\r\n", .missingHost, 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .missingHost, 400),
        ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", .badHeader, 400),
        ("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", .badHeader, 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", .badHeader, 400),
        ("GET / HTTP/1.1\nHost: h\r\n\r\n", .badHeader, 400),
        ("GET / HTTP/1.1\r\nHost: h\u{1}\r\n\r\n", .badHeader, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .badContentLength, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", .badContentLength, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .transferEncoding, 501),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 70000\r\n\r\n", .bodyTooLarge, 413),
    ])
    func malformedRequestsAreRefused(text: String, code: HTTPParseError.Code, status: Int) throws {
        var parser = HTTPRequestParser()
        parser.append(Array(text.utf8))
        let error = #expect(throws: HTTPParseError.self) { try parser.next() }
        #expect(error?.code == code, "\(text.debugDescription): \(String(describing: error))")
        #expect(error?.status == status)
        #expect(error.map { !$0.detail.contains("\n") } ?? false)
        // Failed stays failed.
        #expect(throws: HTTPParseError.self) { try parser.next() }
    }

    @Test func headerLimits() throws {
        let limits = HTTPParserLimits(maxHeaderBytes: 100, maxHeaderCount: 2, maxBodyBytes: 10)
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array(("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 200)).utf8))
        #expect(throws: HTTPParseError(.headerTooLarge, "")) { try parser.next() }
        var many = HTTPRequestParser(limits: limits)
        many.append(Array("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n".utf8))
        #expect(throws: HTTPParseError(.tooManyHeaders, "")) { try many.next() }
    }

    @Test func incompleteBodyWaits() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab".utf8))
        #expect(try parser.next() == .needMoreData)
        parser.append(Array("cd".utf8))
        guard case .request(let request) = try parser.next() else { Issue.record("no request"); return }
        #expect(request.text == "abcd")
    }

    @Test func responseSerializationAndParse() throws {
        let response = HTTPResponse.json(200, "{\"ok\":true}")
        let bytes = response.serialized(keepAlive: false)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Content-Length: 12\r\n"))
        #expect(text.contains("Connection: close\r\n"))
        let parsed = try #require(HTTPResponseHead.parse(bytes))
        #expect(parsed.0.status == 200)
        #expect(parsed.0.text == "{\"ok\":true}\n")
        #expect(HTTPResponse.text(400, "a\r\nb").body == Array("a  b\n".utf8))
    }
}
