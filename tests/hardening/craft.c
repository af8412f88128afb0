/* craft.c: writes the snapshot files the hardening cases feed to the steps, good and bad, through the
 * lab's own writer (so every CRC is right unless the case is a wrong CRC), then bends bytes.
 *
 *   hardening-craft KIND FILE     one file (KIND: see the table below)
 *   hardening-craft --list        the kinds, one a line
 *   hardening-craft --check FILE  0 if FILE is a valid snapshot (finite, CRC right), else 2 and why
 *   hardening-craft --results FILE BYTES   a results CSV of exactly BYTES bytes: the lab's header, then
 *                                 rows written by the lab's own appender (for a file-size limit)
 *
 * The tipsy-* and hdf5-* kinds start from the lab's tipsy and HDF5 writers (formats.h) and bend bytes,
 * attributes or datasets (the latter through the HDF5 library; built without it, each hdf5-* kind is
 * only the HDF5 signature, which the programs then refuse as compiled out).
 */
#define _POSIX_C_SOURCE 200809L
#include "formats.h"
#include "tipsy.h"
#include "init.h"
#include "nbody.h"
#include "reference.h"
#include "results.h"
#include "snapshot.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef NB_HAVE_HDF5
#include <hdf5.h>
#endif

/* Byte edits of a good float32 file of 2 systems of 5 bodies (64 + 7*10*4 + 4 = 348 bytes). */
typedef struct kind {
    const char *name, *what;
} kind;

static const kind kinds[] = {
    {"good", "2 systems of 5 Plummer bodies, float32"},
    {"good64", "the same in float64"},
    {"single", "3 systems of 1 body"},
    {"coincident", "16 bodies, two of them at one place"},
    {"allcoincident", "8 bodies all at one place, moving apart"},
    {"onemass", "16 bodies, all the mass in one"},
    {"far", "2 bodies 1e18 apart (their distance's inverse cube is below float32's range)"},
    {"close", "2 bodies 1e-30 apart"},
    {"heavy", "16 bodies of mass 1000 (m/eps^3 overflows float32 at eps 0)"},
    {"tinymass", "16 bodies of mass 1e-44 (a float32 denormal)"},
    {"hugemass", "16 bodies of mass 3e38"},
    {"nan", "a NaN position, right CRC"},
    {"inf", "an infinite velocity, right CRC"},
    {"big64", "a float64 position too large for float32, right CRC"},
    {"negmass", "a negative mass, right CRC"},
    {"empty", "no bytes"},
    {"header", "the first 40 bytes of a good file"},
    {"truncated", "a good file less its last 10 bytes"},
    {"trailing", "a good file and 3 more bytes"},
    {"magic", "a wrong first byte"},
    {"version", "version 2"},
    {"precision", "precision 3"},
    {"zero", "0 systems"},
    {"huge", "2^40 systems of 2^40 bodies (the product overflows)"},
    {"hugefile", "2^30 bodies claimed by a 348-byte file"},
    {"crc", "one byte of the data flipped"},
    {"hdrnan", "a NaN dt in the header"},
    {"tipsy-good", "tipsy: 5 dark particles, this machine's byte order"},
    {"tipsy-swapped", "tipsy: the same in the other byte order"},
    {"tipsy-truncated", "tipsy: a good file less its last 10 bytes"},
    {"tipsy-counts", "tipsy: nbodies 6, ndark 5"},
    {"tipsy-size", "tipsy: 1000 dark particles claimed by a 212-byte file"},
    {"tipsy-nan", "tipsy: a NaN position"},
    {"tipsy-gas", "tipsy: one gas particle before the 5 dark ones"},
    {"tipsy-star", "tipsy: one star particle after the 5 dark ones"},
    {"hdf5-good", "HDF5: 5 PartType1 particles"},
    {"hdf5-float64", "HDF5: Coordinates and Velocities in float64"},
    {"hdf5-masstable", "HDF5: no Masses, MassTable[1] = 0.2"},
    {"hdf5-truncated", "HDF5: a good file cut to half its length"},
    {"hdf5-counts", "HDF5: NumPart_ThisFile[1] and NumPart_Total[1] 6, datasets of 5"},
    {"hdf5-total", "HDF5: NumPart_Total[1] 7, NumPart_ThisFile[1] 5"},
    {"hdf5-nan", "HDF5: a NaN coordinate"},
    {"hdf5-gas", "HDF5: 2 PartType0 (gas) particles besides the 5"},
    {"hdf5-files", "HDF5: NumFilesPerSnapshot 2"},
    {"hdf5-noheader", "HDF5: no /Header group"},
};

static int write_bytes(const char *path, const unsigned char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) {
        nb_error("cannot write %s", path);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = f ? (unsigned char *)malloc(1 << 16) : NULL;
    if (!buf) {
        nb_error("cannot read %s", path);
        if (f)
            fclose(f);
        return NULL;
    }
    *len = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

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

/* The CRC over everything but the last four bytes, rewritten: an edit the reader must catch by itself. */
static void fix_crc(unsigned char *b, size_t len)
{
    put_u32(b + len - 4, (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, (uInt)(len - 4)));
}

static int state(nb_state *s, size_t systems, size_t bodies)
{
    if (nb_state_alloc(s, systems, bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_init(s, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 7);
    return NB_EXIT_OK;
}

/* tipsy-*: the lab's tipsy file of one Plummer system of 5 bodies, its bytes bent (tipsy.h's layout). */
static int craft_tipsy(const char *name, const char *path)
{
    nb_state s;
    if (state(&s, 1, 5) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    int rc = nb_format_write(NB_FORMAT_TIPSY, path, &s, 0.01, 0.001);
    nb_state_free(&s);
    if (rc != NB_EXIT_OK || !strcmp(name, "tipsy-good"))
        return rc;
    size_t len;
    unsigned char *b = read_all(path, &len);
    if (!b)
        return NB_EXIT_ERROR;
    int32_t count;
    if (!strcmp(name, "tipsy-swapped")) {
        for (size_t at = 0; at < len; at += 4) /* every int and float; the time's two words too */
            for (int k = 0; k < 2; ++k) {
                const unsigned char t = b[at + (size_t)k];
                b[at + (size_t)k] = b[at + 3 - (size_t)k];
                b[at + 3 - (size_t)k] = t;
            }
        unsigned char w[4]; /* the time: a swapped double is its two words swapped as well */
        memcpy(w, b, 4), memcpy(b, b + 4, 4), memcpy(b + 4, w, 4);
    } else if (!strcmp(name, "tipsy-truncated")) {
        len -= 10;
    } else if (!strcmp(name, "tipsy-counts")) {
        count = 6, memcpy(b + 8, &count, 4);
    } else if (!strcmp(name, "tipsy-size")) {
        count = 1000, memcpy(b + 8, &count, 4), memcpy(b + 20, &count, 4);
    } else if (!strcmp(name, "tipsy-nan")) {
        const float v = NAN;
        memcpy(b + NB_TIPSY_HEADER_BYTES + 36 * 2 + 4, &v, 4); /* x of particle 2 */
    } else if (!strcmp(name, "tipsy-gas") || !strcmp(name, "tipsy-star")) {
        const int gas = !strcmp(name, "tipsy-gas");
        const size_t extra = gas ? 48 : 44, at = gas ? NB_TIPSY_HEADER_BYTES : len;
        memmove(b + at + extra, b + at, len - at);
        memset(b + at, 0, extra);
        len += extra;
        count = 6, memcpy(b + 8, &count, 4);
        count = 1, memcpy(b + (gas ? 16 : 24), &count, 4);
    } else {
        free(b);
        nb_error("unknown kind '%s' (see --list)", name);
        return NB_EXIT_ERROR;
    }
    rc = write_bytes(path, b, len);
    free(b);
    return rc;
}

#ifdef NB_HAVE_HDF5
static int h5_set(hid_t file, const char *object, const char *attr, int index, double value)
{
    const hid_t o = H5Oopen(file, object, H5P_DEFAULT), a = o >= 0 ? H5Aopen(o, attr, H5P_DEFAULT) : -1;
    const hid_t space = a >= 0 ? H5Aget_space(a) : -1;
    double v[8] = {0};
    const hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : 0;
    int ok = n >= 1 && n <= 8 && index < n && H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0;
    v[index] = value;
    ok = ok && H5Awrite(a, H5T_NATIVE_DOUBLE, v) >= 0;
    if (space >= 0)
        H5Sclose(space);
    if (a >= 0)
        H5Aclose(a);
    if (o >= 0)
        H5Oclose(o);
    return ok;
}

static int h5_data(hid_t group, const char *name, hid_t type, int rank, hsize_t rows, const void *v)
{
    const hsize_t dims[2] = {rows, 3};
    const hid_t space = H5Screate_simple(rank, dims, NULL);
    const hid_t d = H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0;
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(space);
    return ok;
}
#endif

/* hdf5-*: the lab's HDF5 snapshot of one Plummer system of 5 bodies, bent through the library. */
static int craft_hdf5(const char *name, const char *path)
{
#ifndef NB_HAVE_HDF5
    (void)name;
    static const unsigned char signature[16] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    return write_bytes(path, signature, sizeof signature);
#else
    nb_state s;
    if (state(&s, 1, 5) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    int rc = nb_format_write(NB_FORMAT_HDF5, path, &s, 0.01, 0.001);
    double xyz[5 * 3], vel[5 * 3];
    for (int i = 0; i < 5; ++i) {
        xyz[3 * i] = s.x[i], xyz[3 * i + 1] = s.y[i], xyz[3 * i + 2] = s.z[i];
        vel[3 * i] = s.vx[i], vel[3 * i + 1] = s.vy[i], vel[3 * i + 2] = s.vz[i];
    }
    nb_state_free(&s);
    if (rc != NB_EXIT_OK || !strcmp(name, "hdf5-good"))
        return rc;
    if (!strcmp(name, "hdf5-truncated")) {
        size_t len;
        unsigned char *b = read_all(path, &len);
        rc = b ? write_bytes(path, b, len / 2) : NB_EXIT_ERROR;
        free(b);
        return rc;
    }
    const hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    int ok = file >= 0;
    if (!ok) {
    } else if (!strcmp(name, "hdf5-float64")) {
        ok = H5Ldelete(file, "/PartType1/Coordinates", H5P_DEFAULT) >= 0 &&
             H5Ldelete(file, "/PartType1/Velocities", H5P_DEFAULT) >= 0;
        const hid_t g = ok ? H5Gopen2(file, "PartType1", H5P_DEFAULT) : -1;
        ok = g >= 0 && h5_data(g, "Coordinates", H5T_IEEE_F64LE, 2, 5, xyz) &&
             h5_data(g, "Velocities", H5T_IEEE_F64LE, 2, 5, vel);
        if (g >= 0)
            H5Gclose(g);
    } else if (!strcmp(name, "hdf5-masstable")) {
        ok = H5Ldelete(file, "/PartType1/Masses", H5P_DEFAULT) >= 0 && h5_set(file, "Header", "MassTable", 1, 0.2);
    } else if (!strcmp(name, "hdf5-counts")) {
        ok = h5_set(file, "Header", "NumPart_ThisFile", 1, 6) && h5_set(file, "Header", "NumPart_Total", 1, 6);
    } else if (!strcmp(name, "hdf5-total")) {
        ok = h5_set(file, "Header", "NumPart_Total", 1, 7);
    } else if (!strcmp(name, "hdf5-nan")) {
        const hid_t d = H5Dopen2(file, "/PartType1/Coordinates", H5P_DEFAULT);
        xyz[6] = NAN;
        ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, xyz) >= 0;
        if (d >= 0)
            H5Dclose(d);
    } else if (!strcmp(name, "hdf5-gas")) {
        const hid_t g = H5Gcreate2(file, "PartType0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ok = g >= 0 && h5_data(g, "Coordinates", H5T_IEEE_F32LE, 2, 2, xyz) &&
             h5_set(file, "Header", "NumPart_ThisFile", 0, 2) && h5_set(file, "Header", "NumPart_Total", 0, 2);
        if (g >= 0)
            H5Gclose(g);
    } else if (!strcmp(name, "hdf5-files")) {
        ok = h5_set(file, "Header", "NumFilesPerSnapshot", 0, 2);
    } else if (!strcmp(name, "hdf5-noheader")) {
        ok = H5Ldelete(file, "/Header", H5P_DEFAULT) >= 0;
    } else {
        nb_error("unknown kind '%s' (see --list)", name);
        rc = NB_EXIT_ERROR;
    }
    if (file >= 0 && H5Fclose(file) < 0)
        ok = 0;
    if (!ok && rc == NB_EXIT_OK) {
        nb_error("%s: the HDF5 library could not make kind %s", path, name);
        rc = NB_EXIT_ERROR;
    }
    return rc;
#endif
}

static int craft(const char *name, const char *path)
{
    nb_state s;
    int rc;
    if (!strncmp(name, "tipsy-", 6))
        return craft_tipsy(name, path);
    if (!strncmp(name, "hdf5-", 5))
        return craft_hdf5(name, path);
    if (!strcmp(name, "good64")) {
        nb_state64 w;
        if (state(&s, 2, 5) != NB_EXIT_OK || nb_state64_alloc(&w, 2, 5) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
        nb_state64_from(&w, &s);
        rc = nb_snapshot_write64(path, &w, 0.01, 0.001);
        nb_state64_free(&w);
        nb_state_free(&s);
        return rc;
    }
    if (!strcmp(name, "big64")) {
        nb_state64 w;
        if (state(&s, 2, 5) != NB_EXIT_OK || nb_state64_alloc(&w, 2, 5) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
        nb_state64_from(&w, &s);
        w.x[3] = 1e300;
        rc = nb_snapshot_write64(path, &w, 0.01, 0.001);
        nb_state64_free(&w);
        nb_state_free(&s);
        return rc;
    }
    const size_t systems = !strcmp(name, "single") ? 3 : 1;
    const size_t bodies = !strcmp(name, "single") ? 1
                          : !strcmp(name, "allcoincident") ? 8
                          : (!strcmp(name, "far") || !strcmp(name, "close")) ? 2
                          : (!strcmp(name, "coincident") || !strcmp(name, "onemass") || !strcmp(name, "heavy") ||
                             !strcmp(name, "tinymass") || !strcmp(name, "hugemass")) ? 16 : 0;
    if (bodies) {
        if (state(&s, systems, bodies) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
        if (!strcmp(name, "coincident")) {
            s.x[7] = s.x[3];
            s.y[7] = s.y[3];
            s.z[7] = s.z[3];
        } else if (!strcmp(name, "allcoincident")) {
            for (size_t i = 0; i < bodies; ++i)
                s.x[i] = s.y[i] = s.z[i] = 0.25f;
        } else if (!strcmp(name, "onemass")) {
            for (size_t i = 0; i < bodies; ++i)
                s.m[i] = i == 5 ? 1.0f : 0.0f;
        } else if (!strcmp(name, "far")) {
            s.x[0] = -5e17f;
            s.x[1] = 5e17f;
        } else if (!strcmp(name, "close")) { /* 1e-30 apart: float32 holds it near the origin */
            s.x[0] = s.y[0] = s.z[0] = 0.0f;
            s.x[1] = 1e-30f;
            s.y[1] = s.z[1] = 0.0f;
        } else { /* float32's range: masses of 1000 (m/eps^3 overflows at eps 0), 1e-44 (denormal), 3e38 */
            const float m = !strcmp(name, "heavy") ? 1000.0f : !strcmp(name, "tinymass") ? 1e-44f
                          : !strcmp(name, "hugemass") ? 3e38f : -1.0f;
            for (size_t i = 0; m >= 0.0f && i < bodies; ++i)
                s.m[i] = m;
        }
        rc = nb_snapshot_write(path, &s, 0.01, 0.001);
        nb_state_free(&s);
        return rc;
    }

    /* The rest are edits of the good file. */
    if (state(&s, 2, 5) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    rc = nb_snapshot_write(path, &s, 0.01, 0.001);
    nb_state_free(&s);
    if (rc != NB_EXIT_OK)
        return rc;
    if (!strcmp(name, "good"))
        return NB_EXIT_OK;
    size_t len;
    unsigned char *b = read_all(path, &len);
    if (!b)
        return NB_EXIT_ERROR;
    const size_t data = NB_SNAPSHOT_HEADER_BYTES;
    if (!strcmp(name, "nan")) {
        const float v = NAN;
        memcpy(b + data + 4 * 2, &v, 4);
        fix_crc(b, len);
    } else if (!strcmp(name, "inf")) {
        const float v = INFINITY;
        memcpy(b + data + 4 * 10 * 3 + 4, &v, 4); /* vx of body 1 */
        fix_crc(b, len);
    } else if (!strcmp(name, "negmass")) {
        const float v = -0.1f;
        memcpy(b + data + 4 * 10 * 6 + 4 * 7, &v, 4); /* m of body 2 of system 1 */
        fix_crc(b, len);
    } else if (!strcmp(name, "empty")) {
        len = 0;
    } else if (!strcmp(name, "header")) {
        len = 40;
    } else if (!strcmp(name, "truncated")) {
        len -= 10;
    } else if (!strcmp(name, "trailing")) {
        memset(b + len, 0x55, 3);
        len += 3;
    } else if (!strcmp(name, "magic")) {
        b[0] = 'X';
    } else if (!strcmp(name, "version")) {
        put_u32(b + 8, 2);
    } else if (!strcmp(name, "precision")) {
        put_u32(b + 12, 3);
    } else if (!strcmp(name, "zero")) {
        put_u64(b + 16, 0);
    } else if (!strcmp(name, "huge")) {
        put_u64(b + 16, (uint64_t)1 << 40);
        put_u64(b + 24, (uint64_t)1 << 40);
    } else if (!strcmp(name, "hugefile")) {
        put_u64(b + 16, 1);
        put_u64(b + 24, (uint64_t)1 << 30);
    } else if (!strcmp(name, "crc")) {
        b[data + 17] ^= 0x10;
    } else if (!strcmp(name, "hdrnan")) {
        put_u64(b + 56, UINT64_C(0x7ff8000000000000));
        fix_crc(b, len);
    } else {
        free(b);
        nb_error("unknown kind '%s' (see --list)", name);
        return NB_EXIT_ERROR;
    }
    rc = write_bytes(path, b, len);
    free(b);
    return rc;
}

static long long size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Rows of one fixed result until the next two would not fit, then one whose tag pads the file to the
 * exact size (a tag of up to 200 characters: the appender keeps 255). */
static int craft_results(const char *path, long long bytes)
{
    nb_result r;
    memset(&r, 0, sizeof r);
    r.step = "00";
    r.name = r.build = "filler";
    r.tag = r.model = r.masses = r.config = "";
    r.pass = "PASS";
    r.device = "none";
    r.date = "2000-01-01T00:00:00Z";
    r.commit = "none";
    r.systems = r.bodies = r.steps = r.repeat = 1;
    r.e2e_s = r.e2e_min_s = r.e2e_max_s = r.kernel_s = r.kernel_min_s = r.kernel_max_s = -1.0;
    r.ginteractions_s = r.gflops = r.acc_rms = r.acc_max = r.acc_ratio = r.state_pos = r.state_vel = -1.0;
    unlink(path);
    if (nb_results_append(path, &r) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    const long long header = (long long)sizeof NB_RESULTS_HEADER, row = size_of(path) - header;
    if (row <= 0 || bytes < header + row) {
        nb_error("--results: %lld bytes do not hold the header and one row (%lld)", bytes, header + row);
        return NB_EXIT_ERROR;
    }
    while (size_of(path) + row + 200 < bytes)
        if (nb_results_append(path, &r) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
    char tag[256];
    const long long pad = bytes - size_of(path) - row;
    if (pad > 0) {
        memset(tag, 'x', (size_t)pad);
        tag[pad] = '\0';
        r.tag = tag;
        if (nb_results_append(path, &r) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
    }
    if (size_of(path) != bytes) {
        nb_error("--results: wrote %lld bytes, not %lld", size_of(path), bytes);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

int main(int argc, char **argv)
{
    nb_set_progname("hardening-craft");
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
            printf("%-16s %s\n", kinds[k].name, kinds[k].what);
        return NB_EXIT_OK;
    }
    if (argc == 3 && !strcmp(argv[1], "--check")) {
        nb_state s;
        nb_snapshot_info info;
        if (nb_format_read(argv[2], &s, &info, NULL) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
        printf("%s: %zu systems of %zu bodies, step %llu, every value finite\n", argv[2], s.systems, s.bodies,
               (unsigned long long)info.step);
        nb_state_free(&s);
        return NB_EXIT_OK;
    }
    if (argc == 4 && !strcmp(argv[1], "--results")) {
        char *end;
        const long long bytes = strtoll(argv[3], &end, 10);
        if (*end || bytes <= 0) {
            nb_error("--results FILE BYTES: BYTES must be a positive number, not '%s'", argv[3]);
            return NB_EXIT_ERROR;
        }
        return craft_results(argv[2], bytes);
    }
    if (argc != 3) {
        nb_error("usage: hardening-craft KIND FILE, --check FILE, --results FILE BYTES, or --list");
        return NB_EXIT_ERROR;
    }
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        if (!strcmp(kinds[k].name, argv[1]))
            return craft(argv[1], argv[2]);
    nb_error("unknown kind '%s' (see --list)", argv[1]);
    return NB_EXIT_ERROR;
}
