/* sha256.h: SHA-256 (FIPS 180-4), to bind a cached fp64 reference to the exact state it was computed
 * from: a 32-bit checksum lets two different inputs share a reference. */
#ifndef NB_SHA256_H
#define NB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
} nb_sha256;

void nb_sha256_init(nb_sha256 *c);
void nb_sha256_update(nb_sha256 *c, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL. */
void nb_sha256_hex(nb_sha256 *c, char out[65]);

#ifdef __cplusplus
}
#endif
#endif
