// OpenSSL's EVP AEAD: the example app's AES-256-GCM (an iOS app uses CryptoKit's AES.GCM).
#include <openssl/evp.h>
