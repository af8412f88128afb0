/* variant.c: exact re-presentations of one problem (variant.h). */
#include "variant.h"

#include <string.h>

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
