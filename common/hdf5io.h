/* hdf5io.h: GADGET/SWIFT-style HDF5 snapshots, through the HDF Group's C library (Debian's libhdf5-dev;
 * common/deps.sh hdf5). One system as PartType1 (dark matter):
 *
 *   /Header attributes   NumPart_ThisFile, NumPart_Total, NumPart_Total_HighWord (uint32[6]),
 *                        MassTable (float64[6], 0: masses per particle), Time, Redshift (0), BoxSize (0: not
 *                        periodic), Omega0 (0), OmegaLambda (0), HubbleParam (1), NumFilesPerSnapshot (1),
 *                        Flag_Sfr, Flag_Cooling, Flag_StellarAge, Flag_Metals, Flag_Feedback,
 *                        Flag_DoublePrecision (int32 0); the lab's own: NBodyLab_Eps, NBodyLab_Dt (float64),
 *                        NBodyLab_Step (uint64), NBodyLab_Velocities (a sentence: they are at t - dt/2)
 *   /PartType1           Coordinates, Velocities (float32 [N][3]), Masses (float32 [N]), ParticleIDs
 *                        (uint64 1..N)
 *
 * Read: Coordinates and Velocities of float32 or float64; Masses, or MassTable[1] when there are none;
 * the lab's attributes where present. Refused, each in one line: a file the library cannot open (not
 * HDF5, truncated), no /Header, a count that disagrees with another or with a dataset's shape, one file of
 * several, particles of another type (PartType0 gas, stars...), non-finite or negative values.
 *
 * Built without the library (NB_HAVE_HDF5 undefined: it was not installed), every call says so in one
 * line and returns NB_EXIT_ERROR. */
#ifndef NB_HDF5IO_H
#define NB_HDF5IO_H

#include <stddef.h>
#include "nbody.h"
#include "replace.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when HDF5 support is compiled in. */
int nb_hdf5_available(void);

/* The HDF5 signature (8 bytes) at offset 0, 512, 1024, 2048 ...: 1 when `path` has it. */
int nb_hdf5_sniff(const char *path);

/* Read one system (free with nb_state_free). info: time, eps and dt from NBodyLab_Eps and NBodyLab_Dt
 * (-1 and 0, "not recorded", without them), step. On failure NB_EXIT_ERROR, one line, nothing allocated. */
int nb_hdf5_read(const char *path, nb_state *s, nb_snapshot_info *info);

/* One system (s->systems must be 1) into a temporary beside `path` (replace.h), for the caller to commit
 * or discard. 0, or NB_EXIT_ERROR after one line. */
int nb_hdf5_stage(nb_replace *r, const char *path, const nb_state *s, double eps, double dt);

#ifdef __cplusplus
}
#endif
#endif
