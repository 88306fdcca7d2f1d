import CNGHTTP2

/// The HTTP/2 server side of one connection, framed by libnghttp2 (never hand-written HTTP/2):
/// plaintext bytes in (after TLS), complete requests out, responses submitted per stream, frames
/// pulled for the socket. No IO and no clock: the owning connection actor feeds and drains it.
///
/// nghttp2 enforces RFC 9113 itself — the connection preface, frame sizes, flow control, HPACK,
/// and HTTP messaging (§8.3: pseudo-headers present and valid, no connection-specific fields) —
/// resetting a malformed stream or failing the connection with GOAWAY. On top of it we bound what
/// we keep per stream (``Limits``): header bytes (over the limit nghttp2 resets the stream on our
/// callback's failure) and body bytes (kept up to the limit, counted beyond it, so a 413 can be
/// answered without buffering a hostile body).
///
/// Not Sendable: owned by one connection actor.
final class HTTP2ServerSession {
    struct Limits: Sendable, Hashable {
        /// Header name + value bytes per request (SETTINGS_MAX_HEADER_LIST_SIZE is advertised too).
        var maxHeaderBytes = 16_384
        /// Body bytes kept per request; more is counted, not kept.
        var maxBodyBytes = 65_536
        /// SETTINGS_MAX_CONCURRENT_STREAMS (APNs advertises 1000 once a token is accepted).
        var maxConcurrentStreams: UInt32 = 1_000
    }

    /// The state nghttp2's callbacks write into (its `user_data`).
    final class Box {
        struct Partial {
            var request = HTTP2Request(method: "", path: "")
            var headerBytes = 0
        }

        let limits: Limits
        var partial: [Int32: Partial] = [:]
        var ready: [(Int32, HTTP2Request)] = []
        var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
        init(limits: Limits) { self.limits = limits }
    }

    private var session: OpaquePointer?
    private let box: Box
    /// Requests completed since the connection opened.
    private(set) var requests = 0

    init(limits: Limits = Limits()) throws(HTTP2Error) {
        box = Box(limits: limits)
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw HTTP2Error(.protocolError, "nghttp2_session_callbacks_new failed")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame, let user, astra_h2_frame_type(frame) == UInt8(NGHTTP2_HEADERS.rawValue),
                astra_h2_headers_category(frame) == Int32(NGHTTP2_HCAT_REQUEST.rawValue)
            else { return 0 }
            Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().partial[astra_h2_frame_stream(frame)] = Box.Partial()
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let user, let name, let value else { return 0 }
            let box = Unmanaged<Box>.fromOpaque(user).takeUnretainedValue()
            let stream = astra_h2_frame_stream(frame)
            guard var partial = box.partial[stream] else { return 0 }
            partial.headerBytes += nameLength + valueLength + 32  // RFC 9113 §6.5.2 field size
            guard partial.headerBytes <= box.limits.maxHeaderBytes else {
                box.partial[stream] = nil
                return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)  // resets the stream
            }
            let n = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
            let v = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            switch n {
            case ":method": partial.request.method = v
            case ":path": partial.request.path = v
            case ":scheme": partial.request.scheme = v
            case ":authority": partial.request.authority = v
            default: partial.request.headers.append(HTTP2Field(n, v))
            }
            box.partial[stream] = partial
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, user in
            guard let user, let data else { return 0 }
            let box = Unmanaged<Box>.fromOpaque(user).takeUnretainedValue()
            guard var partial = box.partial[stream] else { return 0 }
            partial.request.bodyBytes += length
            let room = max(0, box.limits.maxBodyBytes - partial.request.body.count)
            if room < length { partial.request.bodyTruncated = true }
            partial.request.body.append(contentsOf: UnsafeBufferPointer(start: data, count: min(room, length)))
            box.partial[stream] = partial
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            let type = UInt32(astra_h2_frame_type(frame))
            guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue,
                astra_h2_frame_flags(frame) & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            else { return 0 }
            let box = Unmanaged<Box>.fromOpaque(user).takeUnretainedValue()
            let stream = astra_h2_frame_stream(frame)
            if let partial = box.partial.removeValue(forKey: stream) { box.ready.append((stream, partial.request)) }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, _, user in
            guard let user else { return 0 }
            let box = Unmanaged<Box>.fromOpaque(user).takeUnretainedValue()
            box.partial[stream] = nil
            box.bodies[stream] = nil
            return 0
        }
        var created: OpaquePointer?
        guard nghttp2_session_server_new(&created, callbacks, Unmanaged.passUnretained(box).toOpaque()) == 0,
            let created
        else { throw HTTP2Error(.protocolError, "nghttp2_session_server_new failed") }
        session = created
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limits.maxConcurrentStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: UInt32(limits.maxHeaderBytes)),
        ]
        guard nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else {
            throw HTTP2Error(.protocolError, "nghttp2_submit_settings failed")
        }
    }

    deinit { nghttp2_session_del(session) }

    /// Feeds received plaintext; returns the requests it completed (stream id, request). A
    /// connection error (bad preface, broken framing) throws; GOAWAY is then queued when nghttp2
    /// can still send one (drain ``outbound()`` before closing).
    func receive(_ bytes: [UInt8]) throws(HTTP2Error) -> [(stream: Int32, request: HTTP2Request)] {
        guard let session else { throw HTTP2Error(.closed, "session closed") }
        let consumed = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        if consumed < 0 {
            throw HTTP2Error(.protocolError, "HTTP/2: \(String(cString: nghttp2_strerror(Int32(consumed))))")
        }
        let ready = box.ready
        box.ready.removeAll()
        requests += ready.count
        return ready.map { (stream: $0.0, request: $0.1) }
    }

    /// Submits `response` on `stream` (a stream the peer reset meanwhile is ignored).
    func respond(stream: Int32, _ response: HTTP2Response) {
        guard let session else { return }
        var fields = [HTTP2Field(":status", String(response.status))] + response.headers
        if !response.body.isEmpty { fields.append(HTTP2Field("content-length", String(response.body.count))) }
        let storage = fields.map { (Array($0.name.lowercased().utf8), Array($0.value.utf8)) }
        var pointers: [UnsafeMutablePointer<UInt8>] = []
        defer { for p in pointers { p.deallocate() } }
        func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8> {
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
            p.initialize(from: bytes, count: bytes.count)
            pointers.append(p)
            return p
        }
        var nva = storage.map { name, value in
            nghttp2_nv(
                name: copy(name), value: copy(value), namelen: name.count, valuelen: value.count,
                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        if !response.body.isEmpty { box.bodies[stream] = (response.body, 0) }
        _ = astra_h2_submit_response(session, stream, &nva, nva.count, response.body.isEmpty ? 0 : 1) {
            _, stream, buffer, length, flags, _, user in
            guard let user, let buffer, let flags else { return 0 }
            let box = Unmanaged<Box>.fromOpaque(user).takeUnretainedValue()
            guard let (bytes, offset) = box.bodies[stream] else {
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                return 0
            }
            let n = min(length, bytes.count - offset)
            bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: n) }
            if offset + n >= bytes.count {
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                box.bodies[stream] = nil
            } else {
                box.bodies[stream] = (bytes, offset + n)
            }
            return n
        }
    }

    /// Frames nghttp2 wants to send now (settings, acks, responses, GOAWAY).
    func outbound() -> [UInt8] {
        guard let session else { return [] }
        var out: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &data)
            guard n > 0, let data else { break }
            out.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
        }
        return out
    }

    /// Neither side has anything left to say (GOAWAY exchanged, or a fatal error): close.
    var finished: Bool {
        guard let session else { return true }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// Queues GOAWAY (NO_ERROR): the peer may finish what is in flight, nothing new.
    func goAway() {
        guard let session else { return }
        _ = nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
    }
}
