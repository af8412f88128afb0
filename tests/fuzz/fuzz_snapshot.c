/* fuzz_snapshot.c: libFuzzer target for the snapshot reader (common/snapshot.c).
 *
 * An input is one mode byte, then a file's bytes. An odd mode byte first rewrites the file's last four
 * bytes with its right CRC, so that the fuzzer also reaches what is checked behind the CRC (sizes,
 * values, masses); an even one leaves the file as it is. Both readers (float32 and float64) must
 * accept the file or refuse it with one line, never crash, overflow or leak; what they accept must be
 * finite with masses >= 0, the same in both precisions. Run with `make fuzz` or `make test-fuzz`. */
#define _GNU_SOURCE /* memfd_create */
#include "nbody.h"
#include "reference.h"
#include "snapshot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

/* A file in memory with a path the reader can open like any other. */
static int file = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (file < 0) {
        file = memfd_create("snapshot", 0);
        if (file < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", file);
    }
    const int fix_crc = data[0] & 1;
    ++data;
    --size;
    uint8_t *bytes = (uint8_t *)malloc(size ? size : 1);
    if (!bytes)
        abort();
    memcpy(bytes, data, size);
    if (fix_crc && size >= 4) {
        const uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), bytes, (uInt)(size - 4));
        for (int i = 0; i < 4; ++i)
            bytes[size - 4 + i] = (uint8_t)(crc >> (8 * i));
    }
    if (ftruncate(file, 0) != 0 || pwrite(file, bytes, size, 0) != (ssize_t)size)
        abort();
    free(bytes);

    nb_state s;
    nb_state64 w;
    nb_snapshot_info info, info64;
    const int ok32 = nb_snapshot_read(path, &s, &info) == NB_EXIT_OK;
    const int ok64 = nb_snapshot_read64(path, &w, &info64) == NB_EXIT_OK;
    /* The readers judge the values they store: a float64 file may hold values beyond float32 (only the
     * float32 reader refuses them) and tiny negative masses (-1e-300 is -0 in float32: only the
     * float64 reader refuses it). So neither verdict implies the other; what is accepted must be sound. */
    if (ok32) {
        for (int k = 0; k < NB_FIELDS; ++k) {
            const float *f = nb_state_field(&s, k);
            for (size_t i = 0; i < nb_state_count(&s); ++i)
                if (!isfinite(f[i]) || (k == NB_FIELDS - 1 && f[i] < 0.0f))
                    abort();
        }
        if (ok64 && (s.systems != w.systems || s.bodies != w.bodies || info.step != info64.step))
            abort();
        nb_state_free(&s);
    }
    if (ok64) {
        for (int k = 0; k < NB_FIELDS; ++k) {
            const double *f = nb_state64_field(&w, k);
            for (size_t i = 0; i < w.systems * w.bodies; ++i)
                if (!isfinite(f[i]) || (k == NB_FIELDS - 1 && f[i] < 0.0))
                    abort();
        }
        nb_state64_free(&w);
    }
    (void)nb_snapshot_crc(path);
    return 0;
}
