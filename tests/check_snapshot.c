/* check_snapshot.c: the snapshot files (common/snapshot.h): exact round trips in both precisions,
 * the byte layout the header comment specifies, every kind of corrupt file rejected with one line and
 * nothing allocated, and failed writes that leave nothing behind. */
#include "init.h"
#include "replace.h"
#include "snapshot.h"
#include "testlib.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

enum { S = 2, N = 5, COUNT = S * N };

/* A small state with every field distinct: uniform bodies, random masses, a step and a time. */
static nb_state sample_state(void)
{
    nb_state s;
    ck_assert_int_eq(nb_state_alloc(&s, S, N), NB_EXIT_OK);
    nb_init(&s, NB_MODEL_UNIFORM, NB_MASSES_RANDOM, 7);
    s.step = 1234567890123ull;
    s.time = 0.1 + 0x1p-40;
    return s;
}

static int same_bits(const void *a, const void *b, size_t bytes) { return memcmp(a, b, bytes) == 0; }

START_TEST(round_trip_float32)
{
    nb_state s = sample_state(), back;
    const char *path = nbt_path(0, "a.nbs");
    ck_assert_int_eq(nb_snapshot_write(path, &s, 0.01, 0.001), NB_EXIT_OK);
    nb_snapshot_info info;
    ck_assert_int_eq(nb_snapshot_read(path, &back, &info), NB_EXIT_OK);
    ck_assert(info.precision == 4 && info.systems == S && info.bodies == N);
    ck_assert(info.step == s.step && back.step == s.step);
    ck_assert(info.time == s.time && back.time == s.time);
    ck_assert(info.eps == 0.01 && info.dt == 0.001);
    for (int k = 0; k < NB_FIELDS; ++k)
        ck_assert_msg(same_bits(nb_state_field(&s, k), nb_state_field(&back, k), COUNT * sizeof(float)),
                      "field %d changed on the round trip", k);
    /* Read as fp64: every float widens exactly. */
    nb_state64 wide;
    ck_assert_int_eq(nb_snapshot_read64(path, &wide, &info), NB_EXIT_OK);
    for (int k = 0; k < NB_FIELDS; ++k)
        for (size_t i = 0; i < COUNT; ++i)
            ck_assert(nb_state64_field(&wide, k)[i] == (double)nb_state_field(&s, k)[i]);
    nb_state64_free(&wide);
    nb_state_free(&back);
    nb_state_free(&s);
    nbt_tmpdir_remove();
}
END_TEST

START_TEST(round_trip_float64)
{
    /* Values that float cannot hold (1/3 + tiny), negative zero, a subnormal: all kept bit for bit. */
    nb_state f = sample_state();
    nb_state64 s, back;
    ck_assert_int_eq(nb_state64_alloc(&s, S, N), NB_EXIT_OK);
    nb_state64_from(&s, &f);
    s.x[0] = 1.0 / 3.0;
    s.y[1] = -0.0;
    s.z[2] = 0x1p-1070;
    s.vx[3] = 1e300;
    s.m[4] = 0.0;
    const char *path = nbt_path(0, "b.nbs");
    ck_assert_int_eq(nb_snapshot_write64(path, &s, 0.25, 1e-5), NB_EXIT_OK);
    nb_snapshot_info info;
    ck_assert_int_eq(nb_snapshot_read64(path, &back, &info), NB_EXIT_OK);
    ck_assert(info.precision == 8 && info.systems == S && info.bodies == N && info.eps == 0.25 && info.dt == 1e-5);
    ck_assert(back.step == f.step && back.time == f.time);
    for (int k = 0; k < NB_FIELDS; ++k)
        ck_assert_msg(same_bits(nb_state64_field(&s, k), nb_state64_field(&back, k), COUNT * sizeof(double)),
                      "field %d changed on the round trip", k);
    nb_state64_free(&back);

    /* Read as float32: each value rounded once; 1e300 does not fit a float and is refused. */
    nb_state narrow;
    nbt_capture err;
    nbt_capture_begin(&err);
    const int rc = nb_snapshot_read(path, &narrow, &info);
    nbt_capture_end(&err);
    ck_assert_int_eq(rc, NB_EXIT_ERROR);
    ck_assert_msg(strstr(err.text, "too large for float32") != NULL, "message: %s", err.text);
    s.vx[3] = 0.5;
    ck_assert_int_eq(nb_snapshot_write64(path, &s, 0.25, 1e-5), NB_EXIT_OK);
    ck_assert_int_eq(nb_snapshot_read(path, &narrow, &info), NB_EXIT_OK);
    for (int k = 0; k < NB_FIELDS; ++k)
        for (size_t i = 0; i < COUNT; ++i)
            ck_assert(same_bits(&(float){(float)nb_state64_field(&s, k)[i]}, nb_state_field(&narrow, k) + i, 4));
    nb_state_free(&narrow);
    nb_state64_free(&s);
    nb_state_free(&f);
    nbt_tmpdir_remove();
}
END_TEST

/* The layout of snapshot.h, read back byte by byte; _i = 0: float32, 1: float64. */
START_TEST(layout_matches_spec)
{
    const uint32_t precision = _i ? 8 : 4;
    nb_state s = sample_state();
    nb_state64 w;
    ck_assert_int_eq(nb_state64_alloc(&w, S, N), NB_EXIT_OK);
    nb_state64_from(&w, &s);
    const char *path = nbt_path(0, "c.nbs");
    ck_assert_int_eq(precision == 4 ? nb_snapshot_write(path, &s, 0.01, 0.002) : nb_snapshot_write64(path, &w, 0.01, 0.002),
                     NB_EXIT_OK);
    size_t len;
    unsigned char *b = nbt_read_file(path, &len);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(len, 64 + NB_FIELDS * COUNT * precision + 4);
    ck_assert(memcmp(b, "NBODYSNP", 8) == 0);
    ck_assert_uint_eq(nbt_get_u32(b + 8), 1);
    ck_assert_uint_eq(nbt_get_u32(b + 12), precision);
    ck_assert_uint_eq(nbt_get_u64(b + 16), S);
    ck_assert_uint_eq(nbt_get_u64(b + 24), N);
    ck_assert_uint_eq(nbt_get_u64(b + 32), s.step);
    const double header[3] = {s.time, 0.01, 0.002};
    for (int k = 0; k < 3; ++k) {
        uint64_t bits;
        memcpy(&bits, &header[k], 8);
        ck_assert_msg(nbt_get_u64(b + 40 + 8 * k) == bits, "header double at byte %d", 40 + 8 * k);
    }
    for (int k = 0; k < NB_FIELDS; ++k)
        for (size_t i = 0; i < COUNT; ++i) {
            const unsigned char *p = b + 64 + ((size_t)k * COUNT + i) * precision;
            if (precision == 4) {
                uint32_t bits;
                memcpy(&bits, nb_state_field(&s, k) + i, 4);
                ck_assert_msg(nbt_get_u32(p) == bits, "field %d value %zu at byte %td", k, i, p - b);
            } else {
                uint64_t bits;
                memcpy(&bits, nb_state64_field(&w, k) + i, 8);
                ck_assert_msg(nbt_get_u64(p) == bits, "field %d value %zu at byte %td", k, i, p - b);
            }
        }
    const uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, (uInt)(len - 4));
    ck_assert_uint_eq(nbt_get_u32(b + len - 4), crc);
    /* The cache key of --input files: the CRC of everything before the stored CRC (with it, every
     * valid file would give the same residue, 0x2144df1c). */
    ck_assert_uint_eq(nb_snapshot_crc(path), crc);
    ck_assert_uint_eq(crc32(crc32(0L, Z_NULL, 0), b, (uInt)len), 0x2144df1c);
    free(b);
    nb_state64_free(&w);
    nb_state_free(&s);
    nbt_tmpdir_remove();
}
END_TEST

/* ---- corrupt files --------------------------------------------------------------------------- */

static void refresh_crc(unsigned char *b, size_t len)
{
    nbt_put_u32(b + len - 4, (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, (uInt)(len - 4)));
}

static void put_f32(unsigned char *p, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    nbt_put_u32(p, bits);
}

static void put_f64(unsigned char *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    nbt_put_u64(p, bits);
}

typedef struct corruption {
    const char *name;
    const char *message;                                 /* a piece of the one line it must print */
    size_t (*apply)(unsigned char *b, size_t len);       /* returns the new length */
} corruption;

/* Offsets of value i of field k in a float32 file of this test's shape. */
static size_t at(int k, size_t i) { return 64 + ((size_t)k * COUNT + i) * 4; }

static size_t empty(unsigned char *b, size_t len) { (void)b; (void)len; return 0; }
static size_t wrong_magic(unsigned char *b, size_t len) { b[3] = 'X'; return len; }
static size_t short_magic(unsigned char *b, size_t len) { (void)b; (void)len; return 5; }
static size_t truncated_header(unsigned char *b, size_t len) { (void)b; (void)len; return 40; }
static size_t wrong_version(unsigned char *b, size_t len) { nbt_put_u32(b + 8, 2); return len; }
static size_t precision_2(unsigned char *b, size_t len) { nbt_put_u32(b + 12, 2); return len; }
static size_t precision_16(unsigned char *b, size_t len) { nbt_put_u32(b + 12, 16); return len; }
static size_t zero_systems(unsigned char *b, size_t len) { nbt_put_u64(b + 16, 0); return len; }
static size_t zero_bodies(unsigned char *b, size_t len) { nbt_put_u64(b + 24, 0); return len; }
static size_t overflow(unsigned char *b, size_t len) /* S * N wraps around 2^64 to 0 */
{
    nbt_put_u64(b + 16, UINT64_C(1) << 32);
    nbt_put_u64(b + 24, UINT64_C(1) << 32);
    return len;
}
static size_t too_many(unsigned char *b, size_t len) /* 2^31 bodies, beyond NB_MAX_TOTAL_BODIES */
{
    nbt_put_u64(b + 16, UINT64_C(1) << 30);
    nbt_put_u64(b + 24, 2);
    return len;
}
static size_t big_claim(unsigned char *b, size_t len) /* 2^30 bodies claimed: 30 GB must not be allocated */
{
    nbt_put_u64(b + 16, UINT64_C(1) << 15);
    nbt_put_u64(b + 24, UINT64_C(1) << 15);
    return len;
}
static size_t nan_time(unsigned char *b, size_t len) { put_f64(b + 40, NAN); return len; }
static size_t truncated_arrays(unsigned char *b, size_t len) { (void)b; return len - 30; }
static size_t missing_crc(unsigned char *b, size_t len) { (void)b; return len - 4; }
static size_t trailing(unsigned char *b, size_t len) { b[len] = 0; return len + 1; }
static size_t flipped_byte(unsigned char *b, size_t len) { b[at(2, 3) + 1] ^= 0x10; return len; }
static size_t flipped_crc(unsigned char *b, size_t len) { b[len - 2] ^= 0x01; return len; }
static size_t nan_value(unsigned char *b, size_t len) { put_f32(b + at(0, 3), NAN); refresh_crc(b, len); return len; }
static size_t inf_value(unsigned char *b, size_t len) { put_f32(b + at(4, 7), -INFINITY); refresh_crc(b, len); return len; }
static size_t negative_mass(unsigned char *b, size_t len) { put_f32(b + at(6, 2), -0.1f); refresh_crc(b, len); return len; }

static const corruption corruptions[] = {
    {"empty file", "empty file", empty},
    {"wrong magic", "NBODYSNP", wrong_magic},
    {"5 bytes", "NBODYSNP", short_magic},
    {"truncated header", "truncated in its header", truncated_header},
    {"version 2", "version 2", wrong_version},
    {"precision 2", "precision 2", precision_2},
    {"precision 16", "precision 16", precision_16},
    {"zero systems", "must be at least 1", zero_systems},
    {"zero bodies", "must be at least 1", zero_bodies},
    {"S*N overflows", "more than", overflow},
    {"too many bodies", "more than", too_many},
    {"2^30 bodies claimed, few bytes", "truncated", big_claim},
    {"NaN time", "non-finite", nan_time},
    {"truncated arrays", "truncated", truncated_arrays},
    {"missing CRC", "truncated", missing_crc},
    {"trailing byte", "after the end", trailing},
    {"one byte flipped", "CRC mismatch", flipped_byte},
    {"CRC flipped", "CRC mismatch", flipped_crc},
    {"NaN position, CRC right", "is nan", nan_value},
    {"-inf velocity, CRC right", "is -inf", inf_value},
    {"negative mass, CRC right", "negative", negative_mass},
};
enum { CORRUPTIONS = sizeof corruptions / sizeof *corruptions };

/* Both readers refuse it: NB_EXIT_ERROR, one line naming the file and the fault, no memory kept. */
static void expect_rejected(const char *path, const char *what, const char *message)
{
    for (int precision = 4; precision <= 8; precision += 4) {
        nb_state s;
        nb_state64 w;
        nb_snapshot_info info;
        memset(&s, 0x5a, sizeof s);
        memset(&w, 0x5a, sizeof w);
        nbt_capture err;
        size_t heap, leaked;
        int rc;
        /* The C library allocates a few things once, on first use (the message's formatting): the
         * heap is compared across a second, identical read, where a real leak would show again. */
        for (int warm = 0; warm < 2; ++warm) {
            nbt_capture_begin(&err);
            heap = nbt_heap_in_use();
            rc = precision == 4 ? nb_snapshot_read(path, &s, &info) : nb_snapshot_read64(path, &w, &info);
            leaked = nbt_heap_in_use() - heap;
            nbt_capture_end(&err);
        }
        ck_assert_msg(rc == NB_EXIT_ERROR, "%s: read%s returned %d", what, precision == 8 ? "64" : "", rc);
        ck_assert_msg(err.lines == 1, "%s: %d lines on stderr: %s", what, err.lines, err.text);
        ck_assert_msg(strstr(err.text, path) && strstr(err.text, message), "%s: the line does not say '%s': %s", what,
                      message, err.text);
        ck_assert_msg(precision == 4 ? s.x == NULL && s.systems == 0 : w.x == NULL && w.systems == 0,
                      "%s: the state was not left empty", what);
        ck_assert_msg(leaked == 0, "%s: %zu bytes still allocated after the failed read", what, leaked);
    }
}

START_TEST(corrupt_file_rejected)
{
    const corruption *c = &corruptions[_i];
    nb_state s = sample_state();
    const char *good = nbt_path(0, "good.nbs"), *bad = nbt_path(1, "bad.nbs");
    ck_assert_int_eq(nb_snapshot_write(good, &s, 0.01, 0.001), NB_EXIT_OK);
    nb_state_free(&s);
    size_t len;
    unsigned char *bytes = nbt_read_file(good, &len);
    ck_assert_ptr_nonnull(bytes);
    bytes = realloc(bytes, len + 16);
    /* One successful read first, so that whatever the C library allocates once is already there. */
    nb_snapshot_info info;
    ck_assert_int_eq(nb_snapshot_read(good, &s, &info), NB_EXIT_OK);
    nb_state_free(&s);
    const size_t bad_len = c->apply(bytes, len);
    ck_assert_int_eq(nbt_write_file(bad, bytes, bad_len), 0);
    expect_rejected(bad, c->name, c->message);
    free(bytes);
    nbt_tmpdir_remove();
}
END_TEST

START_TEST(missing_and_unreadable)
{
    nb_state s;
    nb_snapshot_info info;
    ck_assert_int_eq(nb_snapshot_read(nbt_path(0, "x.nbs"), &s, &info), NB_EXIT_ERROR); /* warm-up */
    expect_rejected(nbt_path(0, "no-such-file.nbs"), "missing file", "cannot read");
    expect_rejected(nbt_tmpdir(), "a folder", "not a regular file");
    nbt_tmpdir_remove();
}
END_TEST

/* ---- writing ------------------------------------------------------------------------------- */

START_TEST(failed_write_leaves_nothing)
{
    nb_state s = sample_state();
    const char *dir = nbt_tmpdir();
    nbt_capture err;

    /* A folder that does not exist: nothing can be created. */
    nbt_capture_begin(&err);
    int rc = nb_snapshot_write(nbt_path(0, "missing/out.nbs"), &s, 0.01, 0.001);
    nbt_capture_end(&err);
    ck_assert_int_eq(rc, NB_EXIT_ERROR);
    ck_assert_msg(err.lines == 1 && strstr(err.text, "cannot write"), "stderr: %s", err.text);
    ck_assert_uint_eq(nbt_count_entries(dir), 0);

    /* The path is a folder: the temporary file is written, the rename fails, the temporary goes. */
    ck_assert_int_eq(mkdir(nbt_path(1, "taken"), 0755), 0);
    nbt_capture_begin(&err);
    rc = nb_snapshot_write(nbt_path(1, "taken"), &s, 0.01, 0.001);
    nbt_capture_end(&err);
    ck_assert_int_eq(rc, NB_EXIT_ERROR);
    ck_assert_msg(err.lines == 1 && strstr(err.text, "cannot write"), "stderr: %s", err.text);
    ck_assert_msg(nbt_count_entries(dir) == 1, "%zu entries in %s: a temporary file was left", nbt_count_entries(dir), dir);

    /* A folder without write permission (root may write anyway: then only the good write is checked). */
    const char *locked = nbt_path(2, "locked");
    ck_assert_int_eq(mkdir(locked, 0555), 0);
    if (geteuid() != 0) {
        nbt_capture_begin(&err);
        rc = nb_snapshot_write(nbt_path(3, "locked/out.nbs"), &s, 0.01, 0.001);
        nbt_capture_end(&err);
        ck_assert_int_eq(rc, NB_EXIT_ERROR);
        ck_assert_msg(err.lines == 1, "stderr: %s", err.text);
        ck_assert_uint_eq(nbt_count_entries(locked), 0);
    }
    rmdir(locked);

    /* Writing over an existing file replaces it whole. */
    const char *path = nbt_path(0, "over.nbs");
    ck_assert_int_eq(nbt_write_file(path, "old", 3), 0);
    ck_assert_int_eq(nb_snapshot_write(path, &s, 0.01, 0.001), NB_EXIT_OK);
    nb_state back;
    nb_snapshot_info info;
    ck_assert_int_eq(nb_snapshot_read(path, &back, &info), NB_EXIT_OK);
    ck_assert(same_bits(back.x, s.x, COUNT * sizeof(float)));
    ck_assert_uint_eq(nbt_count_entries(dir), 2); /* taken/ and over.nbs: no temporaries */
    nb_state_free(&back);
    nb_state_free(&s);
    nbt_tmpdir_remove();
}
END_TEST

/* A file replaced keeps its permission bits (and, as root, its owner and group); a new file is 0644. */
START_TEST(replacing_keeps_the_mode)
{
    nb_state s = sample_state();
    const char *path = nbt_path(0, "kept.nbs");
    ck_assert_int_eq(nbt_write_file(path, "old", 3), 0);
    ck_assert_int_eq(chmod(path, 0640), 0);
    const int root = geteuid() == 0;
    if (root)
        ck_assert_int_eq(chown(path, 4242, 4343), 0);
    ck_assert_int_eq(nb_snapshot_write(path, &s, 0.01, 0.001), NB_EXIT_OK);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_msg((st.st_mode & 07777) == 0640, "mode %o after replacing a file of mode 640", st.st_mode & 07777);
    if (root)
        ck_assert_msg(st.st_uid == 4242 && st.st_gid == 4343, "owner %u:%u, not 4242:4343", st.st_uid, st.st_gid);
    ck_assert_int_eq(st.st_size, NB_SNAPSHOT_HEADER_BYTES + COUNT * NB_FIELDS * 4 + 4); /* replaced all the same */

    const char *fresh = nbt_path(1, "fresh.nbs");
    ck_assert_int_eq(nb_snapshot_write(fresh, &s, 0.01, 0.001), NB_EXIT_OK);
    ck_assert_int_eq(stat(fresh, &st), 0);
    ck_assert_msg((st.st_mode & 07777) == 0644, "a new file has mode %o, not 644", st.st_mode & 07777);
    ck_assert_uint_eq(nbt_count_entries(nbt_tmpdir()), 2); /* no temporaries */
    nb_state_free(&s);
    nbt_tmpdir_remove();
}
END_TEST

/* A signal while a temporary is open removes it, then ends the program as the signal would have; an
 * ignored signal stays ignored; once the file is renamed, the signals' actions are what they were. */
static int child_interrupted(const char *path, int sig, int ignore)
{
    const pid_t pid = fork();
    if (pid == 0) {
        signal(sig, ignore ? SIG_IGN : SIG_DFL); /* as in a program of its own: Check's handler kills the test */
        nb_replace r;
        const int fd = nb_replace_open(&r, path);
        if (fd < 0 || write(fd, "partial", 7) != 7)
            _exit(3);
        raise(sig);
        close(fd);
        _exit(nb_replace_commit(&r, NULL) == NB_EXIT_OK ? 0 : 4);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

START_TEST(signal_removes_the_temporary)
{
    const char *dir = nbt_tmpdir();
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (int k = 0; k < 3; ++k) {
        const int status = child_interrupted(nbt_path(0, "out.nbs"), sigs[k], 0);
        ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k], "signal %d: status %#x, not killed by it",
                      sigs[k], status);
        ck_assert_msg(nbt_count_entries(dir) == 0, "signal %d: %zu files left in %s", sigs[k], nbt_count_entries(dir), dir);
    }
    /* Ignored (nohup): the write goes on and the file is there. */
    const int status = child_interrupted(nbt_path(0, "out.nbs"), SIGHUP, 1);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "ignored SIGHUP: status %#x", status);
    ck_assert_uint_eq(nbt_count_entries(dir), 1);

    /* After a write, the actions are what they were before it. */
    struct sigaction before[3], now;
    for (int k = 0; k < 3; ++k)
        ck_assert_int_eq(sigaction(sigs[k], NULL, &before[k]), 0);
    nb_state s = sample_state();
    ck_assert_int_eq(nb_snapshot_write(nbt_path(1, "again.nbs"), &s, 0.01, 0.001), NB_EXIT_OK);
    for (int k = 0; k < 3; ++k) {
        ck_assert_int_eq(sigaction(sigs[k], NULL, &now), 0);
        ck_assert_msg(now.sa_handler == before[k].sa_handler, "signal %d: another action after the write", sigs[k]);
    }
    nb_state_free(&s);
    nbt_tmpdir_remove();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snapshot");
    TCase *io = nbt_tcase(s, "round-trip", 30);
    tcase_add_test(io, round_trip_float32);
    tcase_add_test(io, round_trip_float64);
    tcase_add_loop_test(io, layout_matches_spec, 0, 2);
    TCase *corrupt = nbt_tcase(s, "corrupt", 30);
    tcase_add_loop_test(corrupt, corrupt_file_rejected, 0, CORRUPTIONS);
    tcase_add_test(corrupt, missing_and_unreadable);
    TCase *write = nbt_tcase(s, "write", 30);
    tcase_add_test(write, failed_write_leaves_nothing);
    tcase_add_test(write, replacing_keeps_the_mode);
    tcase_add_test(write, signal_removes_the_temporary);
    return nbt_run(s, CK_FORK);
}
