/* snapshot.h: the lab's snapshot files (little-endian, CRC-32 checked), read and written atomically.
 *
 *   bytes 0-7   magic "NBODYSNP"           24  uint64  bodies per system N
 *          8   uint32 version = 1          32  uint64  step
 *         12   uint32 precision (4 or 8)   40  float64 time
 *         16   uint64 systems S            48  float64 eps
 *                                          56  float64 dt
 *   then x, y, z, vx, vy, vz, m: seven arrays of S*N values of that precision,
 *   then a uint32 CRC-32 (zlib's) of every byte before it.
 */
#ifndef NB_SNAPSHOT_H
#define NB_SNAPSHOT_H

#include "nbody.h"
#include "reference.h"
#include "replace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NB_SNAPSHOT_HEADER_BYTES 64
#define NB_SNAPSHOT_VERSION 1u

typedef struct nb_snapshot_info {
    uint32_t precision;  /* 4 or 8 */
    uint64_t systems, bodies, step;
    double time, eps, dt;
    uint32_t crc;        /* the file's CRC-32, checked against its contents (set by the readers) */
} nb_snapshot_info;

/* Largest S*N a file may hold (and the lab handles). */
#define NB_MAX_TOTAL_BODIES ((uint64_t)1 << 30)

/* Write float32 or float64 state to `path` through a temporary file and rename: a failed write
 * leaves nothing behind; a file replaced keeps its permission bits. Return 0, or NB_EXIT_ERROR after
 * one line on stderr. */
int nb_snapshot_write(const char *path, const nb_state *s, double eps, double dt);
int nb_snapshot_write64(const char *path, const nb_state64 *s, double eps, double dt);
/* The first half of nb_snapshot_write: the whole file in its temporary, flushed and closed. The caller
 * then renames it into place (nb_replace_commit) or removes it (nb_replace_discard): the harness renames
 * --output only after the results row is appended. 0, or NB_EXIT_ERROR after one line (nothing left). */
int nb_snapshot_stage(nb_replace *r, const char *path, const nb_state *s, double eps, double dt);

/* Read a snapshot of either precision. On success the state is allocated (free with
 * nb_state_free / nb_state64_free). On failure: NB_EXIT_ERROR, one line on stderr, nothing allocated.
 * Rejected: unreadable, empty, wrong magic or version, zero or too large sizes, truncated or trailing
 * bytes, CRC mismatch, non-finite values, negative masses. */
int nb_snapshot_read(const char *path, nb_state *s, nb_snapshot_info *info);
int nb_snapshot_read64(const char *path, nb_state64 *s, nb_snapshot_info *info);

/* CRC-32 of a whole file's bytes except its last four, for reference-cache keys (0 if unreadable). */
uint32_t nb_snapshot_crc(const char *path);

#ifdef __cplusplus
}
#endif
#endif
