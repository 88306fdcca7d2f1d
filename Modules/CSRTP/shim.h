#ifndef ASTRA_CSRTP_SHIM_H
#define ASTRA_CSRTP_SHIM_H
#include <pthread.h>
#include <srtp2/srtp.h>
// Cipher and auth type structures, so a module can register faster primitives with
// srtp_replace_cipher_type / srtp_replace_auth_type (libsrtp still does all of SRTP).
#include <srtp2/cipher.h>
#include <srtp2/auth.h>

/// libsrtp's global state (crypto kernel, type registry) is not thread-safe and srtp_init
/// returns bad_param when called twice. Every module initialises libsrtp through this
/// function instead: it is weak, so the linker keeps one copy (and one once-flag) per process,
/// and it runs srtp_init exactly once. `setup` (may be NULL) runs once right after a
/// successful srtp_init (or the first time it is passed), under the lock; Media registers its
/// primitives there.
__attribute__((weak, noinline)) srtp_err_status_t astra_srtp_init_once(srtp_err_status_t (*setup)(void)) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int done = 0;
    static srtp_err_status_t status = srtp_err_status_ok;
    static srtp_err_status_t (*ran)(void) = NULL;
    pthread_mutex_lock(&lock);
    if (!done) {
        status = srtp_init();
        done = 1;
    }
    if (status == srtp_err_status_ok && setup != NULL && ran != setup) {
        (void)setup();
        ran = setup;
    }
    pthread_mutex_unlock(&lock);
    return status;
}
#endif
