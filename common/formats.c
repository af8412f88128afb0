/* formats.c: which of the lab's three file formats a file is, by its content, and the readers and
 * writers of each behind one call (formats.h). */
#define _POSIX_C_SOURCE 200809L
#include "formats.h"
#include "hdf5io.h"
#include "tipsy.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static const char *const names[] = {"nbs", "tipsy", "hdf5"};
static const char *const titles[] = {"a snapshot", "a tipsy file", "an HDF5 snapshot"}; /* for messages */

const char *nb_format_name(nb_format f)
{
    return (unsigned)f < 3 ? names[f] : "?";
}

int nb_format_parse(const char *name, const char *option, nb_format *out)
{
    for (int k = 0; k < 3; ++k)
        if (!strcmp(name, names[k])) {
            *out = (nb_format)k;
            return NB_EXIT_OK;
        }
    nb_error("%s '%s': must be %s", option, name, NB_FORMAT_NAMES);
    return NB_EXIT_ERROR;
}

nb_format nb_format_detect(const char *path)
{
    unsigned char head[NB_TIPSY_HEADER_BYTES];
    FILE *f = fopen(path, "rb");
    if (!f)
        return NB_FORMAT_NBS; /* its reader says why it cannot be read */
    const size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    if (got >= 8 && !memcmp(head, "NBODYSNP", 8))
        return NB_FORMAT_NBS;
    if (nb_hdf5_sniff(path))
        return NB_FORMAT_HDF5;
    if (nb_tipsy_sniff(head, got))
        return NB_FORMAT_TIPSY;
    return NB_FORMAT_NBS;
}

int nb_format_read(const char *path, nb_state *s, nb_snapshot_info *info, nb_format *found)
{
    if (nb_input_check(path) != NB_EXIT_OK) {
        memset(s, 0, sizeof *s);
        return NB_EXIT_ERROR;
    }
    const nb_format f = nb_format_detect(path);
    if (found)
        *found = f;
    switch (f) {
    case NB_FORMAT_TIPSY: return nb_tipsy_read(path, s, info);
    case NB_FORMAT_HDF5: return nb_hdf5_read(path, s, info);
    default: return nb_snapshot_read(path, s, info);
    }
}

int nb_format_check(nb_format f, size_t systems, const char *path)
{
    if (f == NB_FORMAT_NBS)
        return NB_EXIT_OK;
    if (systems != 1) {
        nb_error("%s: %s holds one system, the state to write has %zu (write .nbs, then one system at a time: "
                 "nbconvert --system K)", path, titles[f], systems);
        return NB_EXIT_ERROR;
    }
    if (f == NB_FORMAT_HDF5 && !nb_hdf5_available()) {
        nb_replace r;
        return nb_hdf5_stage(&r, path, NULL, 0.0, 0.0); /* its one line: compiled out */
    }
    return NB_EXIT_OK;
}

int nb_format_stage(nb_replace *r, nb_format f, const char *path, const nb_state *s, double eps, double dt)
{
    memset(r, 0, sizeof *r);
    switch (f) {
    case NB_FORMAT_TIPSY: return nb_tipsy_stage(r, path, s, eps);
    case NB_FORMAT_HDF5: return nb_hdf5_stage(r, path, s, eps, dt);
    default: return nb_snapshot_stage(r, path, s, eps, dt);
    }
}

int nb_format_write(nb_format f, const char *path, const nb_state *s, double eps, double dt)
{
    nb_replace r;
    if (nb_format_stage(&r, f, path, s, eps, dt) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    return nb_replace_commit(&r, NULL);
}
