// libnghttp2 (Debian libnghttp2-dev): the HTTP/2 framing layer of the push provider emulator.
// Swift reads nghttp2_frame (a C union) awkwardly and cannot build nghttp2_data_provider's union
// in one expression: the few accessors it needs are wrapped here as static inline functions.
#ifndef ASTRA_CNGHTTP2_SHIM_H
#define ASTRA_CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>

static inline uint8_t astra_h2_frame_type(const nghttp2_frame *f) { return f->hd.type; }
static inline uint8_t astra_h2_frame_flags(const nghttp2_frame *f) { return f->hd.flags; }
static inline int32_t astra_h2_frame_stream(const nghttp2_frame *f) { return f->hd.stream_id; }
static inline int astra_h2_headers_category(const nghttp2_frame *f) { return (int)f->headers.cat; }

/// nghttp2_submit_response with a body read by `read` (NULL body when `has_body` is 0).
static inline int astra_h2_submit_response(nghttp2_session *session, int32_t stream_id,
    const nghttp2_nv *nva, size_t nvlen, int has_body, nghttp2_data_source_read_callback read) {
    nghttp2_data_provider provider;
    provider.source.ptr = NULL;
    provider.read_callback = read;
    return nghttp2_submit_response(session, stream_id, nva, nvlen, has_body ? &provider : NULL);
}
#endif
