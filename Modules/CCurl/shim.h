// curl_easy_setopt / curl_easy_getinfo are variadic: typed wrappers for Swift.
#ifndef ASTRA_CCURL_SHIM_H
#define ASTRA_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode astra_curl_setopt_long(CURL *h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode astra_curl_setopt_string(CURL *h, CURLoption o, const char *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode astra_curl_setopt_pointer(CURL *h, CURLoption o, void *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode astra_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode astra_curl_setopt_write_function(CURL *h,
    size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
}
static inline CURLcode astra_curl_getinfo_long(CURL *h, CURLINFO i, long *v) {
    return curl_easy_getinfo(h, i, v);
}
static inline CURLcode astra_curl_getinfo_double(CURL *h, CURLINFO i, double *v) {
    return curl_easy_getinfo(h, i, v);
}
static inline CURLcode astra_curl_setopt_header_function(CURL *h,
    size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f);
}
static inline CURLcode astra_curl_setopt_blob(CURL *h, CURLoption o, struct curl_blob *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode astra_curl_getinfo_pointer(CURL *h, CURLINFO i, char **v) {
    return curl_easy_getinfo(h, i, v);
}
// The multi interface (one connection cache, HTTP/2 multiplexing): curl_multi_setopt is variadic too.
static inline CURLMcode astra_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) {
    return curl_multi_setopt(m, o, v);
}
static inline CURL *astra_curl_msg_easy(CURLMsg *m) { return m->easy_handle; }
static inline CURLcode astra_curl_msg_result(CURLMsg *m) { return m->data.result; }
static inline int astra_curl_msg_done(CURLMsg *m) { return m->msg == CURLMSG_DONE; }
#endif
