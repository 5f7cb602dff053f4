/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Ed25519 (RFC 8032 section 5.1), freestanding: the firmware boot loader
 * verifies, the host signs. Keys and signatures are the RFC's byte strings:
 * a 32-byte secret key (the seed), a 32-byte public key, a 64-byte
 * signature R || S. Everything that touches the secret key or the nonce runs
 * in constant time (no branch or memory index depends on them); verification
 * handles public data only. */
#ifndef NG_ED25519_H
#define NG_ED25519_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/status.h"

/* RFC 8032 5.1.5: the public key of a secret key. */
void ng_ed25519_public_key(uint8_t pub[32], const uint8_t secret[32]);

/* RFC 8032 5.1.6: signs len bytes at msg. The public key is derived from
 * the secret (never taken from the caller: a mismatched one would leak the
 * secret). */
void ng_ed25519_sign(uint8_t sig[64], const uint8_t secret[32], const uint8_t *msg, size_t len);

/* True if pub can be an owner key: its encoding is canonical and decodes
 * to a point (RFC 8032 5.1.3: y < p, a square root exists, not x = 0 with
 * the sign bit set), and that point is not of small order (not one of the
 * 8 points P with [8]P = the identity, under which R = the identity and
 * S = 0 verify for every message). What ng_ed25519_public_key gives always
 * passes. */
bool ng_ed25519_public_ok(const uint8_t pub[32]);

/* RFC 8032 5.1.7: true if sig is a valid signature of msg under pub. False
 * when S >= L (non-canonical), when pub fails ng_ed25519_public_ok (the
 * small-order refusal is this code's, beyond 5.1.7: no key that
 * ng_ed25519_public_key makes is refused by it), or when [S]B != R + [k]A
 * (checked by encoding [S]B - [k]A and comparing it with the R bytes, so
 * an R that is not canonical never matches). */
bool ng_ed25519_verify(const uint8_t sig[64], const uint8_t pub[32], const uint8_t *msg, size_t len);

/* Known answers: SHA-512("abc") (FIPS 180-4) and RFC 8032 7.1 TEST 2
 * verified, with one flipped signature bit and S + L rejected. NG_OK if
 * all pass, else NG_ERR_SELFTEST. */
ng_status ng_ed25519_selftest(void);

#endif
