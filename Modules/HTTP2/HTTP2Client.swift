import CCurl
import Dispatch
import Synchronization

/// An HTTP/2 client over Debian's libcurl (built with nghttp2): one multi handle, so one
/// connection cache, and at most ``Options/maxConnectionsPerHost`` connections to a host (1 by
/// default) with every request multiplexed on it as a stream (`CURLPIPE_MULTIPLEX`,
/// `CURLOPT_PIPEWAIT`). That is what APNs asks of a provider: keep one connection open and reuse
/// it (PUSH-PROVIDERS.md) — a TLS handshake per push would cost a round trip or two each time and
/// look like a connection flood to Apple.
///
/// libcurl's multi handle is driven by one loop on a queue of its own (`curl_multi_poll`, woken by
/// `curl_multi_wakeup` when a request is queued); ``send(_:)`` suspends until its transfer is
/// done. Only that loop touches curl handles. HTTPS only, peer and host verification on
/// (`CURLOPT_CAINFO` / `CURLOPT_CAINFO_BLOB` name the trusted CA, e.g. an emulator's self-signed
/// certificate); redirects are not followed; answers are bounded (``Options/maxBodyBytes``).
public final class HTTP2Client: Sendable {
    public struct Options: Sendable {
        /// PEM CA file to trust instead of the system's.
        public var caFile: String?
        /// PEM certificate(s) to trust instead of the system's (an in-process emulator's own).
        public var caPEM: [UInt8]?
        /// Whole-request limit unless the request sets its own (ms).
        public var timeoutMs = 10_000
        public var connectTimeoutMs = 5_000
        /// Largest answer body accepted.
        public var maxBodyBytes = 65_536
        /// `CURLMOPT_MAX_HOST_CONNECTIONS`: 1 = every request shares one connection.
        public var maxConnectionsPerHost = 1
        /// Reuse an idle connection for this long (`CURLOPT_MAXAGE_CONN`; curl's default, 118 s,
        /// would drop the provider connection between calls).
        public var idleReuseSeconds = 3_600
        public init() {}
    }

    public struct Request: Sendable {
        public var method: String
        public var url: String
        public var headers: [HTTP2Field]
        public var body: [UInt8]
        /// This request's limit (ms); nil = ``Options/timeoutMs``.
        public var timeoutMs: Int?
        public init(method: String, url: String, headers: [HTTP2Field] = [], body: [UInt8] = [], timeoutMs: Int? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeoutMs = timeoutMs
        }
    }

    public struct Response: Sendable, Hashable {
        public var status: Int
        /// Response header fields, names lowercase, in order.
        public var headers: [HTTP2Field]
        public var body: [UInt8]
        /// 2 for HTTP/2, 1 for HTTP/1.x.
        public var httpVersion: Int
        /// libcurl had to open a new connection (TCP + TLS handshake) for this request.
        public var newConnection: Bool
        /// Request queued → answer complete (µs).
        public var elapsedMicroseconds: Int64

        public subscript(name: String) -> String? { headers.first { $0.name == name }?.value }
    }

    /// Counters since start.
    public struct Stats: Sendable, Hashable {
        public var requests = 0
        public var failures = 0
        /// Connections libcurl opened (`CURLINFO_NUM_CONNECTS` summed): TLS handshakes made.
        public var connections = 0
    }

    /// One request in flight (confined to the loop once queued).
    final class Transfer: @unchecked Sendable {
        let request: Request
        let continuation: CheckedContinuation<Result<Response, HTTP2Error>, Never>
        let queuedAt = ContinuousClock.now
        var easy: UnsafeMutableRawPointer?
        var list: UnsafeMutablePointer<curl_slist>?
        var body: [UInt8] = []
        var headers: [HTTP2Field] = []
        var overflow = false
        let limit: Int
        init(_ request: Request, limit: Int, _ continuation: CheckedContinuation<Result<Response, HTTP2Error>, Never>) {
            self.request = request
            self.limit = limit
            self.continuation = continuation
        }
    }

    struct State {
        var pending: [Transfer] = []
        var closed = false
        var stats = Stats()
    }

    public let options: Options
    private let engine: Engine

    public init(options: Options = Options()) throws(HTTP2Error) {
        self.options = options
        engine = try Engine(options: options)
        let engine = engine
        DispatchQueue(label: "astra.http2.client").async { engine.loop() }
    }

    /// Closing the client ends its loop (the loop holds the engine, never the client).
    deinit { engine.close() }

    public var stats: Stats { engine.state.withLock { $0.stats } }

    /// Sends `request` and waits for the whole answer.
    public func send(_ request: Request) async throws(HTTP2Error) -> Response {
        guard request.url.hasPrefix("https://") else {
            throw HTTP2Error(.badRequest, "only https:// URLs (HTTP/2 over TLS)")
        }
        let engine = engine
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Response, HTTP2Error>, Never>) in
            engine.enqueue(Transfer(request, limit: engine.options.maxBodyBytes, continuation))
        }
        return try result.get()
    }

    /// Fails what is queued or in flight and releases the connection.
    public func close() { engine.close() }
}

/// The multi handle and the loop that drives it (the only code touching curl handles).
private final class Engine: @unchecked Sendable {
    typealias Transfer = HTTP2Client.Transfer
    let options: HTTP2Client.Options
    let multi: UnsafeMutableRawPointer
    let state = Mutex(HTTP2Client.State())

    init(options: HTTP2Client.Options) throws(HTTP2Error) {
        guard let multi = curl_multi_init() else { throw HTTP2Error(.network, "curl_multi_init failed") }
        _ = astra_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = astra_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, options.maxConnectionsPerHost)
        self.multi = multi
        self.options = options
    }

    func enqueue(_ transfer: Transfer) {
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.pending.append(transfer)
            return true
        }
        if accepted {
            curl_multi_wakeup(multi)
        } else {
            transfer.continuation.resume(returning: .failure(HTTP2Error(.closed, "HTTP/2 client closed")))
        }
    }

    func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        if first { curl_multi_wakeup(multi) }
    }

    // MARK: The loop (the only code touching curl handles)

    func loop() {
        var active: [UnsafeMutableRawPointer: Transfer] = [:]
        while true {
            let (incoming, closing) = state.withLock { state -> ([Transfer], Bool) in
                defer { state.pending.removeAll() }
                return (state.pending, state.closed)
            }
            for transfer in incoming {
                if closing {
                    transfer.continuation.resume(returning: .failure(HTTP2Error(.closed, "HTTP/2 client closed")))
                    continue
                }
                guard let easy = prepare(transfer) else { continue }
                active[easy] = transfer
                _ = curl_multi_add_handle(multi, easy)
            }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard astra_curl_msg_done(message) != 0, let easy = astra_curl_msg_easy(message),
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                finish(transfer, code: astra_curl_msg_result(message))
            }
            if closing {
                for transfer in active.values {
                    release(transfer)
                    transfer.continuation.resume(returning: .failure(HTTP2Error(.closed, "HTTP/2 client closed")))
                }
                curl_multi_cleanup(multi)
                return
            }
            _ = curl_multi_poll(multi, nil, 0, 1_000, nil)
        }
    }

    func prepare(_ transfer: Transfer) -> UnsafeMutableRawPointer? {
        guard let easy = curl_easy_init() else {
            transfer.continuation.resume(returning: .failure(HTTP2Error(.network, "curl_easy_init failed")))
            return nil
        }
        transfer.easy = easy
        let request = transfer.request
        for field in request.headers { transfer.list = curl_slist_append(transfer.list, "\(field.name): \(field.value)") }
        transfer.list = curl_slist_append(transfer.list, "Expect:")  // never 100-continue
        _ = astra_curl_setopt_string(easy, CURLOPT_URL, request.url)
        _ = astra_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "https")
        _ = astra_curl_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        _ = astra_curl_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        _ = astra_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = astra_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = astra_curl_setopt_long(easy, CURLOPT_MAXAGE_CONN, options.idleReuseSeconds)
        _ = astra_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeoutMs ?? options.timeoutMs)
        _ = astra_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMs)
        _ = astra_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
        if let caFile = options.caFile { _ = astra_curl_setopt_string(easy, CURLOPT_CAINFO, caFile) }
        if let pem = options.caPEM {
            pem.withUnsafeBytes { raw in
                var blob = curl_blob(
                    data: UnsafeMutableRawPointer(mutating: raw.baseAddress), len: raw.count,
                    flags: UInt32(CURL_BLOB_COPY))
                _ = astra_curl_setopt_blob(easy, CURLOPT_CAINFO_BLOB, &blob)
            }
        }
        if !request.body.isEmpty || request.method == "POST" {
            _ = astra_curl_setopt_long(easy, CURLOPT_POSTFIELDSIZE, request.body.count)
            request.body.withUnsafeBytes { raw in
                _ = astra_curl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
            }
        }
        if let list = transfer.list { _ = astra_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, list) }
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = astra_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = astra_curl_setopt_write_function(easy) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            guard transfer.body.count + n <= transfer.limit else {
                transfer.overflow = true
                return 0
            }
            if let data { data.withMemoryRebound(to: UInt8.self, capacity: n) { transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n)) } }
            return n
        }
        _ = astra_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = astra_curl_setopt_header_function(easy) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            guard let data, n > 0 else { return n }
            let line = data.withMemoryRebound(to: UInt8.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) }
            transfer.header(line)
            return n
        }
        return easy
    }

    private func finish(_ transfer: Transfer, code: CURLcode) {
        defer { release(transfer) }
        guard let easy = transfer.easy else { return }
        var connects = 0
        _ = astra_curl_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        guard code == CURLE_OK else {
            let error: HTTP2Error
            if transfer.overflow {
                error = HTTP2Error(.tooLarge, "answer over \(transfer.limit) bytes")
            } else if code == CURLE_OPERATION_TIMEDOUT {
                error = HTTP2Error(.timeout, "no answer within \(transfer.request.timeoutMs ?? options.timeoutMs) ms")
            } else if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CONNECT_ERROR
                || code == CURLE_SSL_CACERT_BADFILE
            {
                error = HTTP2Error(.tls, String(cString: curl_easy_strerror(code)))
            } else {
                error = HTTP2Error(.network, String(cString: curl_easy_strerror(code)))
            }
            state.withLock {
                $0.stats.failures += 1
                $0.stats.connections += connects
            }
            transfer.continuation.resume(returning: .failure(error))
            return
        }
        var status = 0
        var version = 0
        _ = astra_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = astra_curl_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        state.withLock {
            $0.stats.requests += 1
            $0.stats.connections += connects
        }
        let elapsed = transfer.queuedAt.duration(to: .now)
        transfer.continuation.resume(
            returning: .success(
                HTTP2Client.Response(
                    status: status, headers: transfer.headers, body: transfer.body,
                    httpVersion: version == CURL_HTTP_VERSION_2_0 ? 2 : 1, newConnection: connects > 0,
                    elapsedMicroseconds: elapsed.components.seconds * 1_000_000
                        + elapsed.components.attoseconds / 1_000_000_000_000)))
    }

    private func release(_ transfer: Transfer) {
        if let easy = transfer.easy {
            _ = curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
            transfer.easy = nil
        }
        curl_slist_free_all(transfer.list)
        transfer.list = nil
    }
}

extension HTTP2Client.Transfer {
    /// One header line from curl: a status line starts a new response (drop what came before —
    /// an informational answer's fields), `name: value` is kept with the name lowercased.
    func header(_ line: [UInt8]) {
        var text = line
        while let last = text.last, last == 10 || last == 13 { text.removeLast() }
        if text.starts(with: Array("HTTP/".utf8)) {
            headers.removeAll()
            return
        }
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: text[..<colon], as: UTF8.self).lowercased()
        var value = text[(colon + 1)...]
        while let first = value.first, first == 32 || first == 9 { value.removeFirst() }
        headers.append(HTTP2Field(name, String(decoding: value, as: UTF8.self)))
    }
}
