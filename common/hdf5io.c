/* hdf5io.c: GADGET/SWIFT-style HDF5 snapshots (layout in hdf5io.h), through the HDF Group's library.
 * Compiled without it (NB_HAVE_HDF5 undefined) it only says so. */
#define _POSIX_C_SOURCE 200809L
#include "hdf5io.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int nb_hdf5_sniff(const char *path)
{
    static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char got[8];
    int found = 0;
    /* The superblock sits at 0 or, after a user block, at 512, 1024, 2048 ... (the HDF5 specification). */
    for (long at = 0; !found && at <= (1L << 30); at = at ? 2 * at : 512) {
        if (fseek(f, at, SEEK_SET) != 0 || fread(got, 1, 8, f) != 8)
            break;
        found = !memcmp(got, signature, 8);
    }
    fclose(f);
    return found;
}

#ifndef NB_HAVE_HDF5

static int compiled_out(const char *path)
{
    nb_error("%s: HDF5 support is compiled out of this build (libhdf5-dev was not installed: install it, "
             "e.g. bash common/deps.sh hdf5, then remove build/.deps-hdf5 and run make)", path);
    return NB_EXIT_ERROR;
}

int nb_hdf5_available(void) { return 0; }

int nb_hdf5_read(const char *path, nb_state *s, nb_snapshot_info *info)
{
    (void)info;
    memset(s, 0, sizeof *s);
    return compiled_out(path);
}

int nb_hdf5_stage(nb_replace *r, const char *path, const nb_state *s, double eps, double dt)
{
    (void)r, (void)s, (void)eps, (void)dt;
    return compiled_out(path);
}

#else
#include <hdf5.h>

int nb_hdf5_available(void) { return 1; }

/* The library prints its error stack on stderr by default: the lab says one line itself. */
static void quiet(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* File access without the library's file locks (1.10.7 and later): they fail on some network file
 * systems (NFS, Lustre) and would make a good file unreadable there; the lab writes a temporary that
 * no one else opens and reads a file whole. */
static hid_t access_list(void)
{
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 12, 1) || (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7)
    if (fapl >= 0)
        H5Pset_file_locking(fapl, 0, 1);
#endif
    return fapl >= 0 ? fapl : H5P_DEFAULT;
}

static void access_done(hid_t fapl)
{
    if (fapl != H5P_DEFAULT)
        H5Pclose(fapl);
}

/* ---- writing ------------------------------------------------------------------------------ */

static int put_attr(hid_t at, const char *name, hid_t type, size_t n, const void *value)
{
    const hsize_t dims[1] = {n};
    const hid_t space = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    const hid_t a = H5Acreate2(at, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    const int ok = a >= 0 && H5Awrite(a, type, value) >= 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return ok;
}

static int put_text(hid_t at, const char *name, const char *text)
{
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(text) + 1);
    const int ok = put_attr(at, name, type, 0, text);
    H5Tclose(type);
    return ok;
}

static int put_data(hid_t group, const char *name, hid_t file_type, hid_t mem_type, int rank, hsize_t n,
                    const void *data)
{
    const hsize_t dims[2] = {n, 3};
    const hid_t space = H5Screate_simple(rank, dims, NULL);
    const hid_t d = H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int ok = d >= 0 && H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(space);
    return ok;
}

static int write_file(const char *tmp, const nb_state *s, double eps, double dt)
{
    const hsize_t n = s->bodies;
    const hid_t fapl = access_list();
    const hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    access_done(fapl);
    if (file < 0)
        return 0;
    const hid_t header = H5Gcreate2(file, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t part = H5Gcreate2(file, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int ok = header >= 0 && part >= 0;
    const unsigned counts[6] = {0, (unsigned)n, 0, 0, 0, 0}, zeros[6] = {0};
    const double masses[6] = {0}, zero = 0.0, one = 1.0;
    const int files = 1, flag = 0;
    const unsigned long long step = s->step;
    static const char *const flags[] = {"Flag_Sfr", "Flag_Cooling", "Flag_StellarAge", "Flag_Metals",
                                        "Flag_Feedback", "Flag_DoublePrecision"};
    ok = ok && put_attr(header, "NumPart_ThisFile", H5T_NATIVE_UINT, 6, counts) &&
         put_attr(header, "NumPart_Total", H5T_NATIVE_UINT, 6, counts) &&
         put_attr(header, "NumPart_Total_HighWord", H5T_NATIVE_UINT, 6, zeros) &&
         put_attr(header, "MassTable", H5T_NATIVE_DOUBLE, 6, masses) &&
         put_attr(header, "Time", H5T_NATIVE_DOUBLE, 0, &s->time) &&
         put_attr(header, "Redshift", H5T_NATIVE_DOUBLE, 0, &zero) &&
         put_attr(header, "BoxSize", H5T_NATIVE_DOUBLE, 0, &zero) &&
         put_attr(header, "Omega0", H5T_NATIVE_DOUBLE, 0, &zero) &&
         put_attr(header, "OmegaLambda", H5T_NATIVE_DOUBLE, 0, &zero) &&
         put_attr(header, "HubbleParam", H5T_NATIVE_DOUBLE, 0, &one) &&
         put_attr(header, "NumFilesPerSnapshot", H5T_NATIVE_INT, 0, &files) &&
         put_attr(header, "NBodyLab_Eps", H5T_NATIVE_DOUBLE, 0, &eps) &&
         put_attr(header, "NBodyLab_Dt", H5T_NATIVE_DOUBLE, 0, &dt) &&
         put_attr(header, "NBodyLab_Step", H5T_NATIVE_ULLONG, 0, &step) &&
         put_text(header, "NBodyLab_Velocities", "kick-drift leapfrog: velocities at Time - NBodyLab_Dt / 2");
    for (size_t k = 0; ok && k < sizeof flags / sizeof *flags; ++k)
        ok = put_attr(header, flags[k], H5T_NATIVE_INT, 0, &flag);
    float *xyz = ok ? (float *)malloc(3 * (size_t)n * sizeof(float)) : NULL;
    unsigned long long *ids = ok ? (unsigned long long *)malloc((size_t)n * sizeof *ids) : NULL;
    ok = ok && xyz && ids;
    for (int v = 0; ok && v < 2; ++v) {
        const float *c[3] = {v ? s->vx : s->x, v ? s->vy : s->y, v ? s->vz : s->z};
        for (size_t i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k)
                xyz[3 * i + (size_t)k] = c[k][i];
        ok = put_data(part, v ? "Velocities" : "Coordinates", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 2, n, xyz);
    }
    for (size_t i = 0; ok && i < n; ++i)
        ids[i] = i + 1;
    ok = ok && put_data(part, "Masses", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, n, s->m) &&
         put_data(part, "ParticleIDs", H5T_STD_U64LE, H5T_NATIVE_ULLONG, 1, n, ids);
    free(xyz);
    free(ids);
    if (part >= 0)
        H5Gclose(part);
    if (header >= 0)
        H5Gclose(header);
    return H5Fclose(file) >= 0 && ok;
}

int nb_hdf5_stage(nb_replace *r, const char *path, const nb_state *s, double eps, double dt)
{
    if (s->systems != 1) {
        nb_error("%s: an HDF5 snapshot holds one system, the state to write has %zu (write one system at a "
                 "time: nbconvert --system K)", path, s->systems);
        return NB_EXIT_ERROR;
    }
    const int fd = nb_replace_open(r, path);
    if (fd < 0)
        return NB_EXIT_ERROR;
    close(fd); /* the library opens the temporary by its name */
    quiet();
    int ok = write_file(r->tmp, s, eps, dt);
    const int again = ok ? open(r->tmp, O_RDONLY) : -1; /* flushed to disk before it may be renamed */
    ok = ok && again >= 0 && fsync(again) == 0;
    const int saved = errno;
    if (again >= 0)
        close(again);
    if (!ok) {
        nb_error("cannot write %s: %s", path, saved ? strerror(saved) : "the HDF5 library failed");
        nb_replace_discard(r);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct reader {
    const char *path;
    hid_t file, header;
    char why[512]; /* the first failure */
} reader;

static int fail(reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *rd, const char *fmt, ...)
{
    if (!rd->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rd->why, sizeof rd->why, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* A numeric attribute of /Header as up to `max` doubles: the count read, 0 when absent, -1 when unreadable. */
static long get_attr(reader *rd, const char *name, double *out, size_t max)
{
    if (H5Aexists(rd->header, name) <= 0)
        return 0;
    const hid_t a = H5Aopen(rd->header, name, H5P_DEFAULT);
    const hid_t space = a >= 0 ? H5Aget_space(a) : -1;
    const hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    const hid_t type = a >= 0 ? H5Aget_type(a) : -1;
    long got = -1;
    if (n >= 1 && (size_t)n <= max && type >= 0 && H5Tget_class(type) != H5T_STRING &&
        H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0)
        got = (long)n;
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    if (a >= 0)
        H5Aclose(a);
    if (got < 0)
        fail(rd, "its /Header attribute %s is not %s", name, max > 1 ? "an array of numbers" : "a number");
    return got;
}

/* A dataset's shape: rows (and 3 columns when `columns` is 3). 0 with rd->why set when it is not so. */
static int shape(reader *rd, hid_t group, const char *name, int columns, hsize_t rows)
{
    const hid_t d = H5Dopen2(group, name, H5P_DEFAULT);
    if (d < 0)
        return fail(rd, "no readable /PartType1/%s", name);
    const hid_t space = H5Dget_space(d);
    hsize_t dims[3] = {0, 0, 0};
    const int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (rank >= 1 && rank <= 3)
        H5Sget_simple_extent_dims(space, dims, NULL);
    const hid_t type = H5Dget_type(d);
    const int numeric = type >= 0 && H5Tget_class(type) == H5T_FLOAT;
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(d);
    if (!numeric)
        return fail(rd, "/PartType1/%s is not of floating point numbers", name);
    if (rank != (columns == 3 ? 2 : 1) || (columns == 3 && dims[1] != 3))
        return fail(rd, "/PartType1/%s has the wrong shape (rank %d; want [N]%s)", name, rank, columns == 3 ? "[3]" : "");
    if (dims[0] != rows)
        return fail(rd, "its counts disagree: NumPart_ThisFile[1] is %llu, /PartType1/%s has %llu rows", (unsigned long long)rows,
                    name, (unsigned long long)dims[0]);
    return 1;
}

static int get_data(reader *rd, hid_t group, const char *name, double *out)
{
    const hid_t d = H5Dopen2(group, name, H5P_DEFAULT);
    const int ok = d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
    if (d >= 0)
        H5Dclose(d);
    return ok ? 1 : fail(rd, "cannot read /PartType1/%s (the file is truncated or damaged)", name);
}

/* Every value finite and within float32; masses not negative. */
static int check_values(reader *rd, const char *name, const double *v, size_t n, int mass)
{
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(v[i]) || fabs(v[i]) > FLT_MAX || (mass && v[i] < 0.0))
            return fail(rd, "/PartType1/%s of particle %zu is %g%s", name, mass ? i : i / 3, v[i],
                        !isfinite(v[i]) ? "" : mass && v[i] < 0.0 ? " (masses must not be negative)" : " (too large for float32)");
    return 1;
}

static int read_all(reader *rd, nb_state *s, nb_snapshot_info *info)
{
    if (H5Lexists(rd->file, "Header", H5P_DEFAULT) <= 0 || (rd->header = H5Gopen2(rd->file, "Header", H5P_DEFAULT)) < 0)
        return fail(rd, "no /Header group (not a GADGET or SWIFT snapshot)");
    double this_file[8] = {0}, total[8] = {0}, table[8] = {0}, files = 1, time = 0.0;
    const long types = get_attr(rd, "NumPart_ThisFile", this_file, 8);
    if (types == 0)
        return fail(rd, "no /Header attribute NumPart_ThisFile");
    const long totals = get_attr(rd, "NumPart_Total", total, 8);
    const long tables = get_attr(rd, "MassTable", table, 8);
    if (types < 0 || totals < 0 || tables < 0 || get_attr(rd, "NumFilesPerSnapshot", &files, 1) < 0 ||
        get_attr(rd, "Time", &time, 1) < 0)
        return 0;
    if (types < 2)
        return fail(rd, "its NumPart_ThisFile has %ld entries (no PartType1)", types);
    if (files != 1)
        return fail(rd, "one file of a snapshot in %g (NumFilesPerSnapshot): the lab reads a snapshot in one file", files);
    for (long k = 0; k < types; ++k)
        if (!(this_file[k] >= 0 && this_file[k] == floor(this_file[k])))
            return fail(rd, "its NumPart_ThisFile[%ld] is %g", k, this_file[k]);
    for (long k = 0; k < types; ++k)
        if (k != 1 && this_file[k] > 0)
            return fail(rd, "mixes particle types: %g of PartType%ld besides %g of PartType1 (the lab reads one "
                        "kind of body, PartType1)", this_file[k], k, this_file[1]);
    for (int k = 0; k < 7; ++k) { /* a group of another type with particles, whatever the header says */
        char group[16];
        snprintf(group, sizeof group, "PartType%d", k);
        if (k != 1 && H5Lexists(rd->file, group, H5P_DEFAULT) > 0) {
            hid_t g = H5Gopen2(rd->file, group, H5P_DEFAULT);
            int has = g >= 0 && H5Lexists(g, "Coordinates", H5P_DEFAULT) > 0;
            if (has) {
                const hid_t d = H5Dopen2(g, "Coordinates", H5P_DEFAULT), sp = d >= 0 ? H5Dget_space(d) : -1;
                has = sp < 0 || H5Sget_simple_extent_npoints(sp) != 0;
                if (sp >= 0)
                    H5Sclose(sp);
                if (d >= 0)
                    H5Dclose(d);
            }
            if (g >= 0)
                H5Gclose(g);
            if (has)
                return fail(rd, "mixes particle types: it has /%s with particles (the lab reads one kind of body, "
                            "PartType1)", group);
        }
    }
    if (totals > 0 && total[1] != this_file[1])
        return fail(rd, "its counts disagree: NumPart_Total[1] is %g, NumPart_ThisFile[1] %g in its one file",
                    total[1], this_file[1]);
    const double n = this_file[1];
    if (n == 0)
        return fail(rd, "holds no particles (NumPart_ThisFile[1] is 0)");
    if (n > (double)NB_MAX_TOTAL_BODIES)
        return fail(rd, "holds %g particles, more than the %llu bodies the lab handles", n, (unsigned long long)NB_MAX_TOTAL_BODIES);
    if (!isfinite(time))
        return fail(rd, "its /Header attribute Time is %g", time);
    double eps = -1.0, dt = 0.0, step = 0.0;
    if (get_attr(rd, "NBodyLab_Eps", &eps, 1) < 0 || get_attr(rd, "NBodyLab_Dt", &dt, 1) < 0 ||
        get_attr(rd, "NBodyLab_Step", &step, 1) < 0)
        return 0;
    if (!(eps == -1.0 || (eps >= 0.0 && eps <= 1e6 && (eps == 0.0 || (float)(eps * eps) >= FLT_MIN))) ||
        !(dt == 0.0 || (dt > 0.0 && dt <= 1e6 && (float)dt >= FLT_MIN)) || !(step >= 0 && step <= 0x1p62))
        return fail(rd, "NBodyLab_Eps %g, NBodyLab_Dt %g or NBodyLab_Step %g is outside what --eps, --dt take (or "
                    "leaves no room to go on)", eps, dt, step);

    const hid_t part = H5Lexists(rd->file, "PartType1", H5P_DEFAULT) > 0 ? H5Gopen2(rd->file, "PartType1", H5P_DEFAULT) : -1;
    if (part < 0)
        return fail(rd, "no /PartType1 group for its %g particles", n);
    const hsize_t rows = (hsize_t)n;
    const int has_masses = H5Lexists(part, "Masses", H5P_DEFAULT) > 0;
    int ok = shape(rd, part, "Coordinates", 3, rows) && shape(rd, part, "Velocities", 3, rows) &&
             (has_masses ? shape(rd, part, "Masses", 1, rows)
                         : (table[1] > 0 && isfinite(table[1]) && table[1] <= FLT_MAX) ||
                               fail(rd, "no /PartType1/Masses, and MassTable[1] is %g", table[1]));
    double *buf = ok ? (double *)malloc(3 * (size_t)rows * sizeof(double)) : NULL;
    if (ok && !buf)
        ok = fail(rd, "%llu particles do not fit in memory", (unsigned long long)rows);
    ok = ok && nb_state_alloc(s, 1, (size_t)rows) == NB_EXIT_OK;
    if (!ok && !rd->why[0]) /* nb_state_alloc said why */
        snprintf(rd->why, sizeof rd->why, "-");
    for (int v = 0; ok && v < 2; ++v) {
        const char *name = v ? "Velocities" : "Coordinates";
        float *c[3] = {v ? s->vx : s->x, v ? s->vy : s->y, v ? s->vz : s->z};
        ok = get_data(rd, part, name, buf) && check_values(rd, name, buf, 3 * (size_t)rows, 0);
        for (size_t i = 0; ok && i < rows; ++i)
            for (int k = 0; k < 3; ++k)
                c[k][i] = (float)buf[3 * i + (size_t)k];
    }
    if (ok && has_masses)
        ok = get_data(rd, part, "Masses", buf) && check_values(rd, "Masses", buf, (size_t)rows, 1);
    for (size_t i = 0; ok && i < rows; ++i)
        s->m[i] = (float)(has_masses ? buf[i] : table[1]);
    free(buf);
    H5Gclose(part);
    if (!ok)
        return 0;
    s->time = time;
    s->step = (uint64_t)step;
    memset(info, 0, sizeof *info);
    info->precision = 4;
    info->systems = 1;
    info->bodies = rows;
    info->step = s->step;
    info->time = time;
    info->eps = eps;
    info->dt = dt;
    return 1;
}

int nb_hdf5_read(const char *path, nb_state *s, nb_snapshot_info *info)
{
    memset(s, 0, sizeof *s);
    if (nb_input_check(path) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    quiet();
    reader rd = {path, -1, -1, {0}};
    const hid_t fapl = access_list();
    rd.file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    access_done(fapl);
    const int ok = rd.file >= 0 ? read_all(&rd, s, info)
                                : fail(&rd, "the HDF5 library cannot open it (not HDF5, or truncated or damaged)");
    if (rd.header >= 0)
        H5Gclose(rd.header);
    if (rd.file >= 0)
        H5Fclose(rd.file);
    if (ok)
        return NB_EXIT_OK;
    nb_state_free(s);
    memset(s, 0, sizeof *s);
    if (strcmp(rd.why, "-") != 0)
        nb_error("%s: HDF5 snapshot: %s", path, rd.why);
    return NB_EXIT_ERROR;
}
#endif
