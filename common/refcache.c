/* refcache.c: the fp64 reference of a problem (reference.h), kept in a cache folder between runs. A
 * cached file is used only if the reference wrote it for exactly this input (refcache.h). */
#define _POSIX_C_SOURCE 200809L
#include "refcache.h"
#include "progress.h"
#include "sha256.h"
#include "snapshot.h"
#include "replace.h"
#include "timing.h"
#include "util.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* DIR/<kind>-<hash of key>.nbs, where the key names everything the result depends on. */
static void cache_key(const nb_problem *p, const char *kind, uint64_t steps, double dt, char *key, size_t len)
{
    snprintf(key, len, "v4 %s state=%s S=%zu N=%zu eps2=%a dt=%a steps=%llu", kind, p->sha,
             p->initial->systems, p->initial->bodies, p->eps2, dt, (unsigned long long)steps);
}

static void cache_path(const nb_problem *p, const char *key, const char *kind, char *path, size_t len)
{
    char digest[65];
    nb_sha256 sha;
    nb_sha256_init(&sha);
    nb_sha256_update(&sha, key, strlen(key));
    nb_sha256_hex(&sha, digest);
    snprintf(path, len, "%s/%s-%.32s.nbs", p->cache, kind, digest);
}

/* The binding of a cache file: SHA-256 of its key and of the file's CRC-32 (which covers every byte
 * before it, and which the reader checks). The reference writes it beside the file (PATH.key) after the
 * file; a file without it, or whose contents or key differ (a step's snapshot copied there, an old
 * cache, another run's), is not the reference's. */
static void cache_binding(const char *key, uint32_t crc, char out[65])
{
    const unsigned char bytes[4] = {(unsigned char)crc, (unsigned char)(crc >> 8), (unsigned char)(crc >> 16),
                                    (unsigned char)(crc >> 24)};
    nb_sha256 sha;
    nb_sha256_init(&sha);
    nb_sha256_update(&sha, key, strlen(key) + 1);
    nb_sha256_update(&sha, bytes, sizeof bytes);
    nb_sha256_hex(&sha, out);
}

/* A cache file is only a warning when it cannot be used, and said once per run. */
static void cache_warning(const char *path, const char *why)
{
    static int said;
    if (!said++)
        fprintf(stderr, "%s: warning: reference cache %s not used (%s); computing the reference again\n", nb_progname(),
                path, why);
}

/* Write the reference into the cache, then its binding; a cache that cannot be written is only slower. */
static void cache_store(const char *path, const char *key, const nb_state64 *ref, double eps, double dt)
{
    if (nb_snapshot_write64(path, ref, eps, dt) != NB_EXIT_OK)
        return;
    char binding[65], keypath[4300];
    cache_binding(key, nb_snapshot_crc(path), binding);
    snprintf(keypath, sizeof keypath, "%s.key", path);
    nb_replace r;
    const int fd = nb_replace_open(&r, keypath);
    if (fd < 0)
        return;
    const int ok = write(fd, binding, 64) == 64 && close(fd) == 0;
    if (ok)
        nb_replace_commit(&r, NULL);
    else
        nb_replace_discard(&r);
}

/* A cached fp64 state is used only if the reference wrote it for exactly this key (its binding holds),
 * it is a regular file (a FIFO would block) in fp64, of the same shape and masses; a cache of
 * accelerations must also hold the exact initial positions, and four bodies drawn at random are
 * recomputed and must agree. Anything else is said once and recomputed. */
static int cache_load(const char *path, const char *key, const nb_state *initial, double eps2, int is_accel,
                      nb_state64 *out)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode)) {
        cache_warning(path, "not a regular file");
        return 0;
    }
    nb_snapshot_info info;
    if (nb_snapshot_read64(path, out, &info) != NB_EXIT_OK) {
        cache_warning(path, "unreadable");
        return 0;
    }
    char keypath[4300], want[65], have[65] = "";
    snprintf(keypath, sizeof keypath, "%s.key", path);
    const int kfd = open(keypath, O_RDONLY | O_NONBLOCK);
    if (kfd >= 0) {
        struct stat kst;
        if (fstat(kfd, &kst) == 0 && S_ISREG(kst.st_mode) && read(kfd, have, 64) == 64)
            have[64] = '\0';
        else
            have[0] = '\0';
        close(kfd);
    }
    cache_binding(key, info.crc, want);
    if (strcmp(have, want) != 0) {
        cache_warning(path, "the reference did not write it for this input, step count, dt and eps");
        nb_state64_free(out);
        return 0;
    }
    const size_t total = nb_state_count(initial);
    int ok = info.precision == 8 && out->systems == initial->systems && out->bodies == initial->bodies;
    for (size_t i = 0; ok && i < total; ++i)
        ok = out->m[i] == (double)initial->m[i] &&
             (!is_accel || (out->x[i] == (double)initial->x[i] && out->y[i] == (double)initial->y[i] &&
                            out->z[i] == (double)initial->z[i]));
    if (ok && is_accel) {
        size_t pick[4];
        double a[12];
        uint64_t r = (uint64_t)(nb_now() * 1e9) ^ (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
        for (int k = 0; k < 4; ++k) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            pick[k] = (size_t)((r >> 17) % total);
        }
        nb_ref_accel(out, eps2, pick, 4, a, a + 4, a + 8);
        for (int k = 0; k < 4 && ok; ++k) {
            const double want_a = fabs(a[k]) + fabs(a[4 + k]) + fabs(a[8 + k]);
            const double err = fabs(a[k] - out->vx[pick[k]]) + fabs(a[4 + k] - out->vy[pick[k]]) +
                               fabs(a[8 + k] - out->vz[pick[k]]);
            ok = err <= 1e-9 * want_a + 1e-300;
        }
    }
    if (!ok) {
        cache_warning(path, "it does not match this run's input");
        nb_state64_free(out);
    }
    return ok;
}

/* Reference accelerations of all bodies, kept in the vx/vy/vz arrays of an fp64 state. */
int nb_reference_accel_all(const nb_problem *p, nb_state64 *ref)
{
    char key[512], path[4200];
    if (p->cache) {
        cache_key(p, "acc", 0, 0.0, key, sizeof key);
        cache_path(p, key, "acc", path, sizeof path);
        if (cache_load(path, key, p->initial, p->eps2, 1, ref))
            return NB_EXIT_OK;
    }
    if (nb_state64_alloc(ref, p->initial->systems, p->initial->bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_state64_from(ref, p->initial);
    nb_progress("fp64 reference accelerations");
    nb_ref_accel(ref, p->eps2, NULL, 0, ref->vx, ref->vy, ref->vz);
    if (p->cache)
        cache_store(path, key, ref, sqrt(p->eps2), 0.0);
    return NB_EXIT_OK;
}

int nb_reference_state(const nb_problem *p, uint64_t steps, double dt, const nb_state64 *from, uint64_t from_steps,
                       nb_state64 *ref)
{
    char key[512], path[4200];
    if (p->cache) {
        cache_key(p, "state", steps, dt, key, sizeof key);
        cache_path(p, key, "state", path, sizeof path);
        if (cache_load(path, key, p->initial, p->eps2, 0, ref))
            return NB_EXIT_OK;
    }
    if (nb_state64_alloc(ref, p->initial->systems, p->initial->bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    if (from && from_steps <= steps) { /* go on from an earlier state of the same run */
        nb_state64_copy(ref, from);
    } else {
        nb_state64_from(ref, p->initial);
        from_steps = 0;
    }
    nb_progress("fp64 reference steps");
    if (nb_ref_run(ref, steps - from_steps, dt, p->eps2) != NB_EXIT_OK) {
        nb_state64_free(ref);
        return NB_EXIT_ERROR;
    }
    if (p->cache)
        cache_store(path, key, ref, sqrt(p->eps2), dt);
    return NB_EXIT_OK;
}
