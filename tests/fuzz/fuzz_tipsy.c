/* fuzz_tipsy.c: libFuzzer target for the readers behind --input (common/formats.c): which format a
 * file is, by its content, then its reader; above all tipsy (common/tipsy.c), whose header is only
 * plausible, not marked. (The fuzz build has HDF5 compiled out: a file with its signature gets the
 * compiled-out line.)
 *
 * An input is a file's bytes. The reader must accept it or refuse it with one line, never crash,
 * overflow or leak; what it accepts must be finite with masses >= 0, and a tipsy file one system.
 * Run with `make fuzz` or `make test-fuzz`. */
#define _GNU_SOURCE /* memfd_create */
#include "formats.h"
#include "nbody.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int file = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (file < 0) {
        file = memfd_create("input", 0);
        if (file < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", file);
    }
    if (ftruncate(file, 0) != 0 || pwrite(file, data, size, 0) != (ssize_t)size)
        abort();
    nb_state s;
    nb_snapshot_info info;
    nb_format f;
    if (nb_format_read(path, &s, &info, &f) != NB_EXIT_OK)
        return 0;
    if (f == NB_FORMAT_TIPSY && (s.systems != 1 || !isfinite(s.time)))
        abort();
    for (int k = 0; k < NB_FIELDS; ++k) {
        const float *v = nb_state_field(&s, k);
        for (size_t i = 0; i < nb_state_count(&s); ++i)
            if (!isfinite(v[i]) || (k == NB_FIELDS - 1 && v[i] < 0.0f))
                abort();
    }
    nb_state_free(&s);
    return 0;
}
