/* tipsy.c: tipsy binary files (layout in tipsy.h). Written in the machine's byte order, as Bonsai and
 * ChaNGa write them; read in either (pynbody's readers do the same). */
#define _POSIX_C_SOURCE 200809L
#include "tipsy.h"
#include "util.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { GAS_FLOATS = 12, STAR_FLOATS = 11 };

static uint32_t swap32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static int32_t get_i32(const unsigned char *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    if (swap)
        v = swap32(v);
    int32_t i;
    memcpy(&i, &v, 4);
    return i;
}

static float get_f32(const unsigned char *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    if (swap)
        v = swap32(v);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

static double get_f64(const unsigned char *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, 8);
    if (swap)
        v = ((uint64_t)swap32((uint32_t)v) << 32) | swap32((uint32_t)(v >> 32));
    double d;
    memcpy(&d, &v, 8);
    return d;
}

/* The header's counts in one byte order: ndim 1..3, nothing negative. */
static int plausible(const unsigned char *head, int swap)
{
    const int32_t ndim = get_i32(head + 12, swap);
    if (ndim < 1 || ndim > 3)
        return 0;
    for (int k = 0; k < 5; ++k)
        if (get_i32(head + 8 + 4 * k, swap) < 0)
            return 0;
    return 1;
}

int nb_tipsy_sniff(const unsigned char *head, size_t got)
{
    return got >= 28 && (plausible(head, 0) || plausible(head, 1));
}

int nb_tipsy_read(const char *path, nb_state *s, nb_snapshot_info *info)
{
    memset(s, 0, sizeof *s);
    if (nb_input_check(path) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    FILE *f = fopen(path, "rb");
    if (!f) {
        nb_error("cannot read %s: %s", path, strerror(errno));
        return NB_EXIT_ERROR;
    }
    struct stat st;
    unsigned char head[NB_TIPSY_HEADER_BYTES];
    const size_t got = fstat(fileno(f), &st) == 0 ? fread(head, 1, sizeof head, f) : 0;
    if (got < 28 || !nb_tipsy_sniff(head, got)) {
        nb_error("%s: not a tipsy file (no header of time, nbodies, ndim, nsph, ndark, nstar)", path);
        fclose(f);
        return NB_EXIT_ERROR;
    }
    const int swap = !plausible(head, 0);
    const double time = get_f64(head, swap);
    const int32_t nbodies = get_i32(head + 8, swap), ndim = get_i32(head + 12, swap);
    const int32_t nsph = get_i32(head + 16, swap), ndark = get_i32(head + 20, swap), nstar = get_i32(head + 24, swap);
    const uint64_t payload = 4 * ((uint64_t)nsph * GAS_FLOATS + (uint64_t)ndark * NB_TIPSY_DARK_FLOATS +
                                  (uint64_t)nstar * STAR_FLOATS);
    /* With the standard's pad after nstar (32 bytes), or without it (28): whichever the size fits. */
    const uint64_t size = (uint64_t)st.st_size;
    const uint64_t start = size == 28 + payload ? 28 : NB_TIPSY_HEADER_BYTES;
    const char *fail = NULL;
    char why[256];
    if (ndim != 3)
        snprintf(why, sizeof why, "ndim %d in its header (the lab is 3-D)", (int)ndim), fail = why;
    else if ((int64_t)nsph + ndark + nstar != nbodies)
        snprintf(why, sizeof why, "its header lies about its counts: nbodies %d, but nsph + ndark + nstar = %lld",
                 (int)nbodies, (long long)nsph + ndark + nstar), fail = why;
    else if (nsph > 0 || nstar > 0)
        snprintf(why, sizeof why, "holds %d gas and %d star particles besides %d dark ones (the lab reads "
                 "dark matter only: one kind of body)", (int)nsph, (int)nstar, (int)ndark), fail = why;
    else if (ndark == 0)
        fail = "holds no particles";
    else if ((uint64_t)ndark > NB_MAX_TOTAL_BODIES)
        snprintf(why, sizeof why, "%d particles is more than the %llu bodies the lab handles", (int)ndark,
                 (unsigned long long)NB_MAX_TOTAL_BODIES), fail = why;
    else if (size < start + payload)
        snprintf(why, sizeof why, "truncated (%llu bytes, %llu expected for %d dark particles)",
                 (unsigned long long)size, (unsigned long long)(NB_TIPSY_HEADER_BYTES + payload), (int)ndark), fail = why;
    else if (size > start + payload)
        snprintf(why, sizeof why, "%llu bytes after the last of its %d particles",
                 (unsigned long long)(size - start - payload), (int)ndark), fail = why;
    else if (!isfinite(time))
        fail = "non-finite time in its header";
    if (fail) {
        nb_error("%s: tipsy file: %s", path, fail);
        fclose(f);
        return NB_EXIT_ERROR;
    }
    if (fseek(f, (long)start, SEEK_SET) != 0) {
        nb_error("cannot read %s: %s", path, strerror(errno));
        fclose(f);
        return NB_EXIT_ERROR;
    }
    if (nb_state_alloc(s, 1, (size_t)ndark) != NB_EXIT_OK) {
        fclose(f);
        return NB_EXIT_ERROR;
    }
    float *const field[NB_FIELDS + 1] = {s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz, NULL};
    static const char *const name[8] = {"mass", "x", "y", "z", "vx", "vy", "vz", "eps"};
    enum { CHUNK = 1024 };
    unsigned char buf[CHUNK * NB_TIPSY_DARK_FLOATS * 4];
    float eps0 = 0.0f;
    int eps_same = 1;
    for (size_t i = 0; i < (size_t)ndark && !fail; i += CHUNK) {
        const size_t len = (size_t)ndark - i < CHUNK ? (size_t)ndark - i : CHUNK;
        if (fread(buf, NB_TIPSY_DARK_FLOATS * 4, len, f) != len) {
            snprintf(why, sizeof why, "truncated at particle %zu", i), fail = why;
            break;
        }
        for (size_t j = 0; j < len && !fail; ++j) {
            for (int k = 0; k < 8; ++k) {
                const float v = get_f32(buf + 4 * (NB_TIPSY_DARK_FLOATS * j + (size_t)k), swap);
                if (!isfinite(v) || ((k == 0 || k == 7) && v < 0.0f)) {
                    snprintf(why, sizeof why, "%s of particle %zu is %g%s", name[k], i + j, (double)v,
                             isfinite(v) ? " (must not be negative)" : ""), fail = why;
                    break;
                }
                if (k < 7)
                    field[k][i + j] = v;
                else if (i + j == 0)
                    eps0 = v;
                else if (v != eps0)
                    eps_same = 0;
            }
        }
    }
    fclose(f);
    if (fail) {
        nb_error("%s: tipsy file: %s", path, fail);
        nb_state_free(s);
        return NB_EXIT_ERROR;
    }
    s->time = time;
    s->step = 0;
    memset(info, 0, sizeof *info);
    info->precision = 4;
    info->systems = 1;
    info->bodies = (uint64_t)ndark;
    info->time = time;
    /* One softening for the run: the particles', where they share one that --eps would take; as the
     * shortest decimal that rounds to their float32 (0.01, not 0.0099999998), so that a run from a tipsy
     * file the lab wrote gets the eps of the run that wrote it. */
    double eps = eps0;
    for (int digits = 1; digits <= 9; ++digits) {
        char text[32];
        snprintf(text, sizeof text, "%.*g", digits, (double)eps0);
        const double d = strtod(text, NULL);
        if ((float)d == eps0) {
            eps = d;
            break;
        }
    }
    info->eps = eps_same && eps <= 1e6 && (eps == 0.0 || (float)(eps * eps) >= FLT_MIN) ? eps : -1.0;
    return NB_EXIT_OK;
}

int nb_tipsy_stage(nb_replace *r, const char *path, const nb_state *s, double eps)
{
    if (s->systems != 1) {
        nb_error("%s: a tipsy file holds one system, the state to write has %zu (write one system at a time: "
                 "nbconvert --system K)", path, s->systems);
        return NB_EXIT_ERROR;
    }
    if (s->bodies > INT32_MAX) {
        nb_error("%s: %zu bodies do not fit a tipsy header's int32 counts", path, s->bodies);
        return NB_EXIT_ERROR;
    }
    const int fd = nb_replace_open(r, path);
    if (fd < 0)
        return NB_EXIT_ERROR;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        close(fd);
        nb_replace_discard(r);
        return NB_EXIT_ERROR;
    }
    unsigned char head[NB_TIPSY_HEADER_BYTES] = {0};
    const int32_t counts[6] = {(int32_t)s->bodies, 3, 0, (int32_t)s->bodies, 0, 0}; /* the last: the pad */
    memcpy(head, &s->time, 8);
    memcpy(head + 8, counts, sizeof counts - 4);
    int failed = fwrite(head, 1, sizeof head, f) != sizeof head;
    enum { CHUNK = 1024 };
    float buf[CHUNK * NB_TIPSY_DARK_FLOATS];
    const float *const field[7] = {s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz};
    for (size_t i = 0; i < s->bodies && !failed; i += CHUNK) {
        const size_t len = s->bodies - i < CHUNK ? s->bodies - i : CHUNK;
        for (size_t j = 0; j < len; ++j) {
            float *p = buf + NB_TIPSY_DARK_FLOATS * j;
            for (int k = 0; k < 7; ++k)
                p[k] = field[k][i + j];
            p[7] = (float)eps;
            p[8] = 0.0f; /* phi: not computed */
        }
        failed = fwrite(buf, NB_TIPSY_DARK_FLOATS * sizeof(float), len, f) != len;
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        failed = 1;
    const int saved = errno;
    if (fclose(f) != 0)
        failed = 1;
    if (failed) {
        nb_error("cannot write %s: %s", path, strerror(saved));
        nb_replace_discard(r);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}
