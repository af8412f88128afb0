/* formats.h: the three file formats a run starts from and writes, told apart by their content:
 *
 *   nbs     the lab's snapshot (snapshot.h): "NBODYSNP" in its first 8 bytes; any S systems
 *   hdf5    GADGET/SWIFT-style HDF5 (hdf5io.h): the HDF5 signature; one system
 *   tipsy   tipsy binary (tipsy.h): a header whose counts are plausible; one system
 *
 * Anything else is read as a snapshot, whose reader says what is wrong with it. */
#ifndef NB_FORMATS_H
#define NB_FORMATS_H

#include <stddef.h>
#include "nbody.h"
#include "replace.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_format { NB_FORMAT_NBS, NB_FORMAT_TIPSY, NB_FORMAT_HDF5 } nb_format;

/* The names, "nbs|tipsy|hdf5", for --help and messages; and one name to its format: 0, or
 * NB_EXIT_ERROR after one line naming `option`. */
#define NB_FORMAT_NAMES "nbs, tipsy or hdf5"
const char *nb_format_name(nb_format f);
int nb_format_parse(const char *name, const char *option, nb_format *out);

/* The format of a file by its content (nbs for anything not tipsy or HDF5: its reader says why not). */
nb_format nb_format_detect(const char *path);

/* Read a file of any of the three (float32; free with nb_state_free). info: precision, shape, time,
 * step; eps (< 0: not recorded) and dt (0: not recorded). NB_EXIT_ERROR after one line, nothing allocated. */
int nb_format_read(const char *path, nb_state *s, nb_snapshot_info *info, nb_format *found);

/* Whether a state of `systems` systems can be written as f: 0, or NB_EXIT_ERROR after one line
 * (tipsy and HDF5 hold one system; HDF5 needs the library compiled in). For refusing before a run. */
int nb_format_check(nb_format f, size_t systems, const char *path);

/* The state as f into a temporary beside `path`, for the caller to commit or discard (replace.h); and
 * the same committed. 0, or NB_EXIT_ERROR after one line (nothing left behind). */
int nb_format_stage(nb_replace *r, nb_format f, const char *path, const nb_state *s, double eps, double dt);
int nb_format_write(nb_format f, const char *path, const nb_state *s, double eps, double dt);

#ifdef __cplusplus
}
#endif
#endif
