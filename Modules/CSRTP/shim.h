#ifndef ASTRA_CSRTP_SHIM_H
#define ASTRA_CSRTP_SHIM_H
#include <srtp2/srtp.h>
// Cipher and auth type structures, so a module can register faster primitives with
// srtp_replace_cipher_type / srtp_replace_auth_type (libsrtp still does all of SRTP).
#include <srtp2/cipher.h>
#include <srtp2/auth.h>
#endif
