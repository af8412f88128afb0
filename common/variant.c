/* variant.c: exact re-presentations of one problem (variant.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getpid */
#include "variant.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void nb_variant_pick(nb_variant *v, uint64_t k, size_t bodies)
{
    memset(v, 0, sizeof *v);
    for (int d = 0; d < 3; ++d)
        v->axis[d] = (int)((d + k) % 3);
    /* Sign patterns 1..7 in turn (never all plain after k = 0), and shifts of about 0.38 N apart. */
    const unsigned signs = k ? (unsigned)((k - 1) % 7 + 1) : 0u;
    for (int d = 0; d < 3; ++d)
        v->flip[d] = (signs >> d) & 1u;
    v->shift = bodies ? (size_t)((k * (bodies / 8 * 3 + 1)) % bodies) : 0;
}

void nb_variant_draw(nb_variant *v, size_t bodies)
{
    uint64_t bits[2] = {0, 0};
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(bits, sizeof bits, 1, f) != 1) { /* no /dev/urandom: the clock and the process */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        bits[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
        bits[1] = bits[0] * 6364136223846793005ull + (uint64_t)ts.tv_sec;
    }
    if (f)
        fclose(f);
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    do {
        const int *p = perms[bits[0] % 6];
        for (int d = 0; d < 3; ++d) {
            v->axis[d] = p[d];
            v->flip[d] = (int)((bits[0] >> (8 + d)) & 1u);
        }
        v->shift = bodies ? (size_t)(bits[1] % bodies) : 0;
        bits[0] = bits[0] * 6364136223846793005ull + 1442695040888963407ull;
        bits[1] ^= bits[0] >> 7;
    } while (nb_variant_is_identity(v));
}

int nb_variant_is_identity(const nb_variant *v)
{
    for (int d = 0; d < 3; ++d)
        if (v->axis[d] != d || v->flip[d])
            return 0;
    return v->shift == 0;
}

/* forward: dst[(i + shift) mod N][d] = +-src[i][axis[d]]; back: the inverse. */
static void move(const nb_variant *v, const nb_state *src, nb_state *dst, int forward)
{
    const size_t n = src->bodies;
    const float *from_pos[3] = {src->x, src->y, src->z}, *from_vel[3] = {src->vx, src->vy, src->vz};
    float *to_pos[3] = {dst->x, dst->y, dst->z}, *to_vel[3] = {dst->vx, dst->vy, dst->vz};
    for (size_t s = 0; s < src->systems; ++s) {
        const size_t first = s * n;
        for (size_t i = 0; i < n; ++i) {
            const size_t moved = (i + v->shift) % n;
            const size_t a = first + (forward ? i : moved), b = first + (forward ? moved : i);
            for (int d = 0; d < 3; ++d) {
                /* forward: new axis d from old axis[d]; back: old axis[d] from new axis d */
                const int to = forward ? d : v->axis[d], from = forward ? v->axis[d] : d;
                const float p = from_pos[from][a], u = from_vel[from][a];
                to_pos[to][b] = v->flip[d] ? -p : p;
                to_vel[to][b] = v->flip[d] ? -u : u;
            }
            dst->m[b] = src->m[a];
        }
    }
    dst->step = src->step;
    dst->time = src->time;
}

void nb_variant_apply(const nb_variant *v, const nb_state *src, nb_state *dst) { move(v, src, dst, 1); }
void nb_variant_undo(const nb_variant *v, const nb_state *src, nb_state *dst) { move(v, src, dst, 0); }
