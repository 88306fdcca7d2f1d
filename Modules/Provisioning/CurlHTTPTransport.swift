import CCurl

/// HTTP over libcurl's easy interface (curl.se/libcurl/c/libcurl-easy.html), one handle per
/// request, blocking on a detached task. Timeouts: `CURLOPT_CONNECTTIMEOUT_MS` and
/// `CURLOPT_TIMEOUT_MS`; `CURLOPT_NOSIGNAL` because we are multi-threaded.
public struct CurlHTTPTransport: HTTPTransport {
    /// Whole-request timeout in milliseconds.
    public var timeoutMilliseconds: Int
    /// Largest body accepted (a misbehaving server cannot exhaust memory).
    public var maxBodyBytes: Int

    public init(timeoutMilliseconds: Int = 10_000, maxBodyBytes: Int = 8 << 20) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.maxBodyBytes = maxBodyBytes
    }

    public func send(_ request: HTTPRequest) async throws(PlatformError) -> HTTPResponse {
        let result = await Task.detached { [self] in Result { () throws(PlatformError) in try perform(request) } }.value
        return try result.get()
    }

    /// The collected body; `overflow` is set when it passed `limit`.
    final class Sink {
        var body: [UInt8] = []
        var limit: Int
        var overflow = false
        init(limit: Int) { self.limit = limit }
    }

    func perform(_ request: HTTPRequest) throws(PlatformError) -> HTTPResponse {
        guard let handle = curl_easy_init() else { throw PlatformError(.network, "libcurl: curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for (name, value) in request.headers { headers = curl_slist_append(headers, "\(name): \(value)") }
        let sink = Sink(limit: maxBodyBytes)
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        _ = astra_curl_setopt_string(handle, CURLOPT_URL, request.url)
        _ = astra_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = astra_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        _ = astra_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMilliseconds, 5000))
        _ = astra_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = astra_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = astra_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        if let body = request.body {
            _ = astra_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
            body.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: body.count) {
                    _ = astra_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, $0)
                }
            }
        }
        if let headers { _ = astra_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers) }
        _ = astra_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, unmanaged.toOpaque())
        _ = astra_curl_setopt_write_function(handle) { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            if sink.body.count + n > sink.limit {
                sink.overflow = true
                return 0
            }
            if let data {
                data.withMemoryRebound(to: UInt8.self, capacity: n) {
                    sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n))
                }
            }
            return n
        }
        let code = curl_easy_perform(handle)
        guard code == CURLE_OK else {
            let what = String(cString: curl_easy_strerror(code))
            if sink.overflow {
                throw PlatformError(.badResponse, "\(request.url): response larger than \(maxBodyBytes) bytes")
            }
            if code == CURLE_PEER_FAILED_VERIFICATION {
                throw PlatformError(.certificate, "\(request.method) \(request.url): \(what) (give the API's CA to curl: CURL_CA_BUNDLE)")
            }
            if code == CURLE_OPERATION_TIMEDOUT {
                throw PlatformError(
                    .timeout,
                    "\(request.method) \(request.url): no answer within \(timeoutMilliseconds) ms")
            }
            throw PlatformError(.network, "\(request.method) \(request.url): \(what)")
        }
        var status = 0
        _ = astra_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, body: sink.body)
    }
}
