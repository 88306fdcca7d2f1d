// glibc's resolver (libresolv): res_query is a macro for __res_query, wrapped here so Swift
// can call it. Used by SIPTransport for RFC 3263 SRV lookups.
#ifndef ASTRA_CRESOLV_SHIM_H
#define ASTRA_CRESOLV_SHIM_H
#include <netinet/in.h>
#include <arpa/nameser.h>
#include <resolv.h>

static inline int astra_res_query(const char *name, int klass, int type, unsigned char *answer, int length) {
    return res_query(name, klass, type, answer, length);
}
#endif
