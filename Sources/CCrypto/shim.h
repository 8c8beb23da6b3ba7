// OpenSSL's libcrypto from Debian's libssl-dev (3.0): the EVP interfaces for AES-256-CTR
// (the library's media at rest), AES-256-GCM (item keys wrapped by the device key),
// SHA-256 (checksums) and RAND_bytes. Chosen over libsodium because it is already on every
// Debian box (libssl3 is a dependency of curl, libsoup's TLS stack and systemd), uses AES-NI,
// and its CTR mode gives random access by setting the counter.
#pragma once
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
