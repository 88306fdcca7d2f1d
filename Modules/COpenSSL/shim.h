// Swift cannot import function-like macros or call C variadic functions;
// the few OpenSSL macros AstraSIP needs are wrapped here as static inline functions.
#ifndef ASTRA_COPENSSL_SHIM_H
#define ASTRA_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>

static inline long astra_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long astra_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long astra_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long astra_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long astra_SSL_set_mtu(SSL *ssl, long mtu) {
    return SSL_set_mtu(ssl, mtu);
}
static inline long astra_DTLSv1_get_timeout(SSL *ssl, struct timeval *tv) {
    return DTLSv1_get_timeout(ssl, tv);
}
static inline long astra_DTLSv1_handle_timeout(SSL *ssl) {
    return DTLSv1_handle_timeout(ssl);
}
static inline long astra_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}
static inline long astra_BIO_set_mem_eof_return(BIO *bio, int v) {
    return BIO_set_mem_eof_return(bio, v);
}
static inline long astra_BIO_ctrl_pending(BIO *bio) {
    return (long)BIO_ctrl_pending(bio);
}
static inline long astra_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *x509) {
    return SSL_CTX_add1_chain_cert(ctx, x509);
}
static inline uint64_t astra_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline const int astra_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
static inline const int astra_TLS1_3_VERSION(void) { return TLS1_3_VERSION; }
static inline const int astra_DTLS1_2_VERSION(void) { return DTLS1_2_VERSION; }

/* SIP digest's MD5 and SHA-256 through OpenSSL's low-level functions: they need no provider,
   while the first EVP fetch of anything initialises OpenSSL 3's provider and method store
   (~6 M instructions, a third of a one-shot registration; docs/decisions.md). Deprecated in
   3.0 but kept by OpenSSL 3.x; the wrappers keep the deprecation out of Swift. */
#include <openssl/md5.h>
#include <openssl/sha.h>
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static inline int astra_MD5_Init(MD5_CTX *c) { return MD5_Init(c); }
static inline int astra_MD5_Update(MD5_CTX *c, const void *data, size_t length) { return MD5_Update(c, data, length); }
static inline int astra_MD5_Final(unsigned char *out, MD5_CTX *c) { return MD5_Final(out, c); }
static inline int astra_SHA256_Init(SHA256_CTX *c) { return SHA256_Init(c); }
static inline int astra_SHA256_Update(SHA256_CTX *c, const void *data, size_t length) { return SHA256_Update(c, data, length); }
static inline int astra_SHA256_Final(unsigned char *out, SHA256_CTX *c) { return SHA256_Final(out, c); }
#pragma clang diagnostic pop
#endif
