/* formats_foreign.c: tipsy and GADGET-2-style HDF5 files as another program writes them, by hand,
 * without the lab's writers (tests/formats-check.sh feeds them to a step and to nbconvert).
 *
 *   formats_foreign DIR   writes DIR/foreign-be.tipsy (big-endian, as the tipsy standard has it, with
 *                         the pad), DIR/foreign-nopad.tipsy (this machine's order, the 28-byte header),
 *                         DIR/foreign.h5 (int32 counts, float64 Coordinates, no Masses: MassTable[1];
 *                         the HDF5 library's calls directly; left out when built without it) and
 *                         DIR/foreign.raw: the seven float32 arrays x y z vx vy vz m that all of them hold,
 *                         in the order of a lab snapshot's arrays.
 * The bodies: 37 on a slanted ring, each moving along it, all of mass 1/37 (exact in float32 as
 * written: every value is computed in float32 once and then only copied). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef NB_HAVE_HDF5
#include <hdf5.h>
#endif

enum { N = 37 };
static float body[7][N]; /* x y z vx vy vz m */

static void be32(unsigned char *p, const void *v)
{
    uint32_t u;
    memcpy(&u, v, 4);
    p[0] = (unsigned char)(u >> 24), p[1] = (unsigned char)(u >> 16), p[2] = (unsigned char)(u >> 8), p[3] = (unsigned char)u;
}

static int save(const char *dir, const char *name, const void *bytes, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "formats_foreign: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

/* One tipsy file: big-endian with the 32-byte header, or native with the 28-byte one. */
static int tipsy(const char *dir, const char *name, int big, int header)
{
    static unsigned char b[32 + N * 36];
    memset(b, 0, sizeof b);
    const double time = 0.125;
    const int32_t counts[5] = {N, 3, 0, N, 0};
    const float eps = 0.05f, phi = 0.0f;
    if (big) {
        uint64_t t;
        memcpy(&t, &time, 8);
        for (int k = 0; k < 8; ++k)
            b[k] = (unsigned char)(t >> (56 - 8 * k));
        for (int k = 0; k < 5; ++k)
            be32(b + 8 + 4 * k, &counts[k]);
    } else {
        memcpy(b, &time, 8);
        memcpy(b + 8, counts, sizeof counts);
    }
    for (int i = 0; i < N; ++i) {
        const float p[9] = {body[6][i], body[0][i], body[1][i], body[2][i], body[3][i], body[4][i], body[5][i], eps, phi};
        for (int k = 0; k < 9; ++k) {
            unsigned char *at = b + header + 36 * i + 4 * k;
            if (big)
                be32(at, &p[k]);
            else
                memcpy(at, &p[k], 4);
        }
    }
    return save(dir, name, b, (size_t)header + N * 36);
}

#ifdef NB_HAVE_HDF5
static int attr(hid_t g, const char *name, hid_t type, hsize_t n, const void *v)
{
    const hid_t sp = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(g, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    const int bad = a < 0 || H5Awrite(a, type, v) < 0;
    H5Aclose(a);
    H5Sclose(sp);
    return bad;
}

static int gadget(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/foreign.h5", dir);
    const hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return 1;
    const hid_t h = H5Gcreate2(f, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t p = H5Gcreate2(f, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int counts[6] = {0, N, 0, 0, 0, 0}, one = 1;
    const double table[6] = {0, body[6][0], 0, 0, 0, 0}, time = 0.125, zero = 0.0;
    int bad = attr(h, "NumPart_ThisFile", H5T_NATIVE_INT, 6, counts) | attr(h, "NumPart_Total", H5T_NATIVE_INT, 6, counts) |
              attr(h, "MassTable", H5T_NATIVE_DOUBLE, 6, table) | attr(h, "Time", H5T_NATIVE_DOUBLE, 0, &time) |
              attr(h, "Redshift", H5T_NATIVE_DOUBLE, 0, &zero) | attr(h, "BoxSize", H5T_NATIVE_DOUBLE, 0, &zero) |
              attr(h, "NumFilesPerSnapshot", H5T_NATIVE_INT, 0, &one);
    static double xyz[N * 3];
    hsize_t dims[2] = {N, 3};
    for (int v = 0; v < 2; ++v) {
        for (int i = 0; i < N; ++i)
            for (int k = 0; k < 3; ++k)
                xyz[3 * i + k] = body[3 * v + k][i];
        const hid_t sp = H5Screate_simple(2, dims, NULL);
        const hid_t d = H5Dcreate2(p, v ? "Velocities" : "Coordinates", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        bad |= d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, xyz) < 0;
        H5Dclose(d);
        H5Sclose(sp);
    }
    unsigned ids[N];
    for (int i = 0; i < N; ++i)
        ids[i] = (unsigned)(1000 + i);
    const hid_t sp = H5Screate_simple(1, dims, NULL);
    const hid_t d = H5Dcreate2(p, "ParticleIDs", H5T_STD_U32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bad |= d < 0 || H5Dwrite(d, H5T_NATIVE_UINT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids) < 0;
    H5Dclose(d);
    H5Sclose(sp);
    H5Gclose(p);
    H5Gclose(h);
    bad |= H5Fclose(f) < 0;
    if (bad)
        fprintf(stderr, "formats_foreign: the HDF5 library could not write %s\n", path);
    return bad;
}
#endif

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: formats_foreign DIR\n");
        return 2;
    }
    for (int i = 0; i < N; ++i) {
        const float a = 6.2831853f * (float)i / (float)N, r = 1.0f + 0.01f * (float)i;
        body[0][i] = r * cosf(a), body[1][i] = r * sinf(a), body[2][i] = 0.3f * body[1][i];
        body[3][i] = -0.8f * sinf(a), body[4][i] = 0.8f * cosf(a), body[5][i] = 0.3f * body[4][i];
        body[6][i] = 1.0f / (float)N;
    }
    int bad = tipsy(argv[1], "foreign-be.tipsy", 1, 32) | tipsy(argv[1], "foreign-nopad.tipsy", 0, 28) |
              save(argv[1], "foreign.raw", body, sizeof body);
#ifdef NB_HAVE_HDF5
    bad |= gadget(argv[1]);
#endif
    return bad ? 2 : 0;
}
