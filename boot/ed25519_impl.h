/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Ed25519 internals the tests reach (tests/unit/test_ed25519.c checks the
 * reduction mod L against OpenSSL's BIGNUM). Not an API. */
#ifndef NG_ED25519_IMPL_H
#define NG_ED25519_IMPL_H
#include <stdint.h>

/* out = in mod L (in: 64 bytes little-endian, out: 32, not overlapping
 * in), constant time. */
void ng_ed25519_sc_reduce(uint8_t out[32], const uint8_t in[64]);

#endif
