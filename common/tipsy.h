/* tipsy.h: tipsy binary files (Bonsai, ChaNGa, pynbody read them), dark matter only.
 *
 *   header, 32 bytes, the machine's byte order: float64 time; int32 nbodies, ndim, nsph, ndark, nstar;
 *   int32 pad. Then nsph gas, ndark dark and nstar star particles, in that order; a dark one is nine
 *   float32: mass, x, y, z, vx, vy, vz, eps, phi (gas 12 floats, star 11).
 *
 * The lab writes one system as ndark = N dark particles in its own byte order, eps the run's, phi 0,
 * velocities the lab's own (at t - dt/2: common/README.md, "Other file formats"). It reads either byte
 * order, with or without the pad, and refuses gas or star particles, counts that disagree with each
 * other or with the file's size, and non-finite or negative values, each in one line. */
#ifndef NB_TIPSY_H
#define NB_TIPSY_H

#include <stddef.h>
#include <stdint.h>
#include "nbody.h"
#include "replace.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NB_TIPSY_HEADER_BYTES 32
#define NB_TIPSY_DARK_FLOATS 9

/* 1 when the first bytes of a file (got of them) look like a tipsy header in either byte order: ndim
 * 1, 2 or 3 and no negative count. The reader then checks the rest against the file's size. */
int nb_tipsy_sniff(const unsigned char *head, size_t got);

/* Read a tipsy file into one system (nb_state_alloc'd; free with nb_state_free). info gets time, eps
 * (-1 when the particles' eps differ or lie outside what --eps takes: the run's default then), dt 0
 * (not recorded), step 0. On failure: NB_EXIT_ERROR, one line on stderr, nothing allocated. */
int nb_tipsy_read(const char *path, nb_state *s, nb_snapshot_info *info);

/* One system (s->systems must be 1) as a tipsy file, into a temporary beside `path` (replace.h), for
 * the caller to commit or discard. 0, or NB_EXIT_ERROR after one line (nothing left behind). */
int nb_tipsy_stage(nb_replace *r, const char *path, const nb_state *s, double eps);

#ifdef __cplusplus
}
#endif
#endif
