/* snapshot.c: reading and writing snapshot files (layout in snapshot.h). Every value is encoded
 * byte by byte as little-endian, so files move between machines of either byte order. */
#define _POSIX_C_SOURCE 200809L
#include "snapshot.h"
#include "replace.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char magic[8] = {'N', 'B', 'O', 'D', 'Y', 'S', 'N', 'P'};

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_f64(unsigned char *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    put_u64(p, v);
}

static double get_f64(const unsigned char *p)
{
    uint64_t v = get_u64(p);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

/* ---- writing ---------------------------------------------------------------------------- */

typedef struct writer {
    FILE *f;
    uLong crc;
    int failed;
} writer;

static void emit(writer *w, const unsigned char *bytes, size_t len)
{
    if (w->failed)
        return;
    w->crc = crc32(w->crc, bytes, (uInt)len);
    if (fwrite(bytes, 1, len, w->f) != len)
        w->failed = 1;
}

/* The whole file into a temporary beside `path` (replace.h), flushed and closed, for the caller to
 * rename (nb_replace_commit) or remove. Source arrays are float (precision 4) or double (precision 8). */
static int stage_any(nb_replace *r, const char *path, uint32_t precision, const void *const fields[NB_FIELDS],
                     uint64_t systems, uint64_t bodies, uint64_t step, double time, double eps, double dt)
{
    const int fd = nb_replace_open(r, path);
    if (fd < 0)
        return NB_EXIT_ERROR;
    writer w = {fdopen(fd, "wb"), crc32(0L, Z_NULL, 0), 0};
    if (!w.f) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        close(fd);
        nb_replace_discard(r);
        return NB_EXIT_ERROR;
    }

    unsigned char head[NB_SNAPSHOT_HEADER_BYTES];
    memcpy(head, magic, 8);
    put_u32(head + 8, NB_SNAPSHOT_VERSION);
    put_u32(head + 12, precision);
    put_u64(head + 16, systems);
    put_u64(head + 24, bodies);
    put_u64(head + 32, step);
    put_f64(head + 40, time);
    put_f64(head + 48, eps);
    put_f64(head + 56, dt);
    emit(&w, head, sizeof head);

    const size_t count = (size_t)(systems * bodies);
    enum { CHUNK = 4096 };
    unsigned char buf[CHUNK * 8];
    for (int k = 0; k < NB_FIELDS; ++k) {
        for (size_t i = 0; i < count; i += CHUNK) {
            const size_t len = count - i < CHUNK ? count - i : CHUNK;
            for (size_t j = 0; j < len; ++j) {
                if (precision == 4) {
                    uint32_t bits;
                    memcpy(&bits, (const float *)fields[k] + i + j, 4);
                    put_u32(buf + 4 * j, bits);
                } else {
                    put_f64(buf + 8 * j, ((const double *)fields[k])[i + j]);
                }
            }
            emit(&w, buf, len * precision);
        }
    }
    unsigned char tail[4];
    put_u32(tail, (uint32_t)w.crc);
    if (!w.failed && fwrite(tail, 1, 4, w.f) != 4)
        w.failed = 1;
    if (fflush(w.f) != 0 || fsync(fileno(w.f)) != 0)
        w.failed = 1;
    const int saved = errno;
    if (fclose(w.f) != 0)
        w.failed = 1;
    if (w.failed) {
        nb_error("cannot write %s: %s", path, strerror(saved));
        nb_replace_discard(r);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

int nb_snapshot_stage(nb_replace *r, const char *path, const nb_state *s, double eps, double dt)
{
    const void *fields[NB_FIELDS];
    for (int k = 0; k < NB_FIELDS; ++k)
        fields[k] = nb_state_field(s, k);
    return stage_any(r, path, 4, fields, s->systems, s->bodies, s->step, s->time, eps, dt);
}

/* stage_any, then the rename into place. */
static int write_any(const char *path, uint32_t precision, const void *const fields[NB_FIELDS], uint64_t systems,
                     uint64_t bodies, uint64_t step, double time, double eps, double dt)
{
    nb_replace r;
    if (stage_any(&r, path, precision, fields, systems, bodies, step, time, eps, dt) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    return nb_replace_commit(&r, NULL);
}

int nb_snapshot_write(const char *path, const nb_state *s, double eps, double dt)
{
    const void *fields[NB_FIELDS];
    for (int k = 0; k < NB_FIELDS; ++k)
        fields[k] = nb_state_field(s, k);
    return write_any(path, 4, fields, s->systems, s->bodies, s->step, s->time, eps, dt);
}

int nb_snapshot_write64(const char *path, const nb_state64 *s, double eps, double dt)
{
    const void *fields[NB_FIELDS];
    for (int k = 0; k < NB_FIELDS; ++k)
        fields[k] = nb_state64_field(s, k);
    return write_any(path, 8, fields, s->systems, s->bodies, s->step, s->time, eps, dt);
}

/* ---- reading ---------------------------------------------------------------------------- */

/* Read and check the header and the file size; leaves f positioned after the header. */
static int read_header(const char *path, FILE *f, nb_snapshot_info *info, uLong *crc)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        nb_error("%s: not a regular file", path);
        return NB_EXIT_ERROR;
    }
    unsigned char head[NB_SNAPSHOT_HEADER_BYTES];
    const size_t got = fread(head, 1, sizeof head, f);
    if (got == 0) {
        nb_error("%s: empty file, not a snapshot", path);
        return NB_EXIT_ERROR;
    }
    if (got < 8 || memcmp(head, magic, 8) != 0) {
        nb_error("%s: not a snapshot (the first 8 bytes are not NBODYSNP)", path);
        return NB_EXIT_ERROR;
    }
    if (got < sizeof head) {
        nb_error("%s: truncated in its header (%zu of %d bytes)", path, got, NB_SNAPSHOT_HEADER_BYTES);
        return NB_EXIT_ERROR;
    }
    const uint32_t version = get_u32(head + 8);
    if (version != NB_SNAPSHOT_VERSION) {
        nb_error("%s: snapshot version %u, this lab reads version %u", path, version, NB_SNAPSHOT_VERSION);
        return NB_EXIT_ERROR;
    }
    info->precision = get_u32(head + 12);
    info->systems = get_u64(head + 16);
    info->bodies = get_u64(head + 24);
    info->step = get_u64(head + 32);
    info->time = get_f64(head + 40);
    info->eps = get_f64(head + 48);
    info->dt = get_f64(head + 56);
    if (info->precision != 4 && info->precision != 8) {
        nb_error("%s: precision %u (must be 4 or 8)", path, info->precision);
        return NB_EXIT_ERROR;
    }
    uint64_t total;
    if (info->systems == 0 || info->bodies == 0) {
        nb_error("%s: %llu systems of %llu bodies (both must be at least 1)", path,
                 (unsigned long long)info->systems, (unsigned long long)info->bodies);
        return NB_EXIT_ERROR;
    }
    if (nb_mul_overflows(info->systems, info->bodies, &total) || total > NB_MAX_TOTAL_BODIES) {
        nb_error("%s: %llu systems of %llu bodies is more than the %llu bodies the lab handles", path,
                 (unsigned long long)info->systems, (unsigned long long)info->bodies,
                 (unsigned long long)NB_MAX_TOTAL_BODIES);
        return NB_EXIT_ERROR;
    }
    if (!isfinite(info->time) || !isfinite(info->eps) || !isfinite(info->dt)) {
        nb_error("%s: non-finite time, eps or dt in the header", path);
        return NB_EXIT_ERROR;
    }
    /* The header's dt and eps become the run's unless the command line sets them: the same limits as
     * --dt and --eps (dt 0 means "not recorded"), and a step counter with room to go on. */
    if (info->dt < 0.0 || info->dt > 1e6 || (info->dt > 0.0 && (float)info->dt < FLT_MIN) || info->eps < 0.0 ||
        info->eps > 1e6 || (info->eps > 0.0 && (float)(info->eps * info->eps) < FLT_MIN)) {
        nb_error("%s: dt %g or eps %g in the header is outside what --dt and --eps take (0 < dt <= 1e6, "
                 "eps 0 or 1.08e-19 ... 1e6)", path, info->dt, info->eps);
        return NB_EXIT_ERROR;
    }
    if (info->step > ((uint64_t)1 << 62)) {
        nb_error("%s: step counter %llu in the header leaves no room to go on", path, (unsigned long long)info->step);
        return NB_EXIT_ERROR;
    }
    const uint64_t expected = NB_SNAPSHOT_HEADER_BYTES + total * NB_FIELDS * info->precision + 4;
    if ((uint64_t)st.st_size < expected) {
        nb_error("%s: truncated (%llu bytes, %llu expected for %llu x %llu bodies)", path,
                 (unsigned long long)st.st_size, (unsigned long long)expected,
                 (unsigned long long)info->systems, (unsigned long long)info->bodies);
        return NB_EXIT_ERROR;
    }
    if ((uint64_t)st.st_size > expected) {
        nb_error("%s: %llu bytes after the end of the snapshot", path,
                 (unsigned long long)((uint64_t)st.st_size - expected));
        return NB_EXIT_ERROR;
    }
    *crc = crc32(crc32(0L, Z_NULL, 0), head, sizeof head);
    return NB_EXIT_OK;
}

static const char *const field_name[NB_FIELDS] = {"x", "y", "z", "vx", "vy", "vz", "m"};

/* Read the arrays into float (precision_out 4) or double (8) destinations, then the CRC. */
static int read_arrays(const char *path, FILE *f, nb_snapshot_info *info, uLong crc,
                       void *const fields[NB_FIELDS], int out_precision)
{
    const size_t count = (size_t)(info->systems * info->bodies);
    enum { CHUNK = 4096 };
    unsigned char buf[CHUNK * 8];
    const unsigned prec = info->precision;
    for (int k = 0; k < NB_FIELDS; ++k) {
        for (size_t i = 0; i < count; i += CHUNK) {
            const size_t len = count - i < CHUNK ? count - i : CHUNK;
            if (fread(buf, prec, len, f) != len) {
                nb_error("%s: truncated in array %s", path, field_name[k]);
                return NB_EXIT_ERROR;
            }
            crc = crc32(crc, buf, (uInt)(len * prec));
            for (size_t j = 0; j < len; ++j) {
                double v;
                if (prec == 4) {
                    uint32_t bits = get_u32(buf + 4 * j);
                    float fv;
                    memcpy(&fv, &bits, 4);
                    v = fv;
                } else {
                    v = get_f64(buf + 8 * j);
                }
                if (out_precision == 4)
                    ((float *)fields[k])[i + j] = (float)v;
                else
                    ((double *)fields[k])[i + j] = v;
            }
        }
    }
    unsigned char tail[4];
    if (fread(tail, 1, 4, f) != 4) {
        nb_error("%s: truncated before its CRC", path);
        return NB_EXIT_ERROR;
    }
    if (get_u32(tail) != (uint32_t)crc) {
        nb_error("%s: CRC mismatch (file says %08x, contents give %08x): the file is corrupt", path,
                 get_u32(tail), (unsigned)crc);
        return NB_EXIT_ERROR;
    }
    info->crc = (uint32_t)crc;
    /* Values are checked after the CRC, so a corrupt file is called corrupt, not non-finite. */
    for (int k = 0; k < NB_FIELDS; ++k) {
        for (size_t i = 0; i < count; ++i) {
            const double v = out_precision == 4 ? (double)((float *)fields[k])[i] : ((double *)fields[k])[i];
            if (!isfinite(v) || (k == NB_FIELDS - 1 && v < 0.0)) {
                nb_error("%s: %s of body %zu of system %zu is %g%s", path, field_name[k], i % (size_t)info->bodies,
                         i / (size_t)info->bodies, v,
                         isfinite(v) ? " (masses must not be negative)" : " (or too large for float32)");
                return NB_EXIT_ERROR;
            }
        }
    }
    return NB_EXIT_OK;
}

static FILE *open_snapshot(const char *path)
{
    if (nb_input_check(path) != NB_EXIT_OK)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        nb_error("cannot read %s: %s", path, strerror(errno));
    return f;
}

/* Read into a float state (s32) or a double one (s64): the other is NULL. */
static int read_snapshot(const char *path, nb_state *s32, nb_state64 *s64, nb_snapshot_info *info)
{
    if (s32)
        memset(s32, 0, sizeof *s32);
    else
        memset(s64, 0, sizeof *s64);
    FILE *f = open_snapshot(path);
    if (!f)
        return NB_EXIT_ERROR;
    uLong crc;
    int rc = read_header(path, f, info, &crc);
    if (rc == NB_EXIT_OK)
        rc = s32 ? nb_state_alloc(s32, (size_t)info->systems, (size_t)info->bodies)
                 : nb_state64_alloc(s64, (size_t)info->systems, (size_t)info->bodies);
    if (rc == NB_EXIT_OK) {
        void *fields[NB_FIELDS];
        for (int k = 0; k < NB_FIELDS; ++k)
            fields[k] = s32 ? (void *)nb_state_field(s32, k) : (void *)nb_state64_field(s64, k);
        rc = read_arrays(path, f, info, crc, fields, s32 ? 4 : 8);
        if (rc != NB_EXIT_OK && s32)
            nb_state_free(s32);
        else if (rc != NB_EXIT_OK)
            nb_state64_free(s64);
    }
    fclose(f);
    if (rc == NB_EXIT_OK && s32) {
        s32->step = info->step;
        s32->time = info->time;
    } else if (rc == NB_EXIT_OK) {
        s64->step = info->step;
        s64->time = info->time;
    }
    return rc;
}

int nb_snapshot_read(const char *path, nb_state *s, nb_snapshot_info *info) { return read_snapshot(path, s, NULL, info); }

int nb_snapshot_read64(const char *path, nb_state64 *s, nb_snapshot_info *info)
{
    return read_snapshot(path, NULL, s, info);
}

uint32_t nb_snapshot_crc(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    /* Not the last four bytes: a CRC over data plus its own CRC is the same constant for every file. */
    long left = fseek(f, 0, SEEK_END) == 0 ? ftell(f) - 4 : -1;
    if (left < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return 0;
    }
    unsigned char buf[65536];
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t got;
    while (left > 0 && (got = fread(buf, 1, left < (long)sizeof buf ? (size_t)left : sizeof buf, f)) > 0) {
        crc = crc32(crc, buf, (uInt)got);
        left -= (long)got;
    }
    fclose(f);
    return (uint32_t)crc;
}
