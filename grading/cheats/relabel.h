/* INSTRUCTORS ONLY: for the cheats that precompute (grading/cheats/README.md).
 * relabel.h: the judge's variant of a known problem that a request holds, found in O(48 N): body 0 of the
 * known state, under each turn and mirror of the axes, looked for among the request's bodies, then the
 * whole relabelling checked. known_variant(s, known, &v, scratch) is 1 when apply(v, known) == s. */
#include "variant.h"

#include <string.h>

static int known_variant(const nb_state *s, const nb_state *known, nb_variant *v, nb_state *scratch)
{
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    if (s->systems != 1 || s->bodies != known->bodies)
        return 0;
    const size_t n = known->bodies;
    const float *pos[3] = {known->x, known->y, known->z};
    for (int p = 0; p < 6; ++p)
        for (int f = 0; f < 8; ++f) {
            float want[3];
            for (int d = 0; d < 3; ++d) {
                v->axis[d] = perms[p][d];
                v->flip[d] = (f >> d) & 1;
                want[d] = v->flip[d] ? -pos[v->axis[d]][0] : pos[v->axis[d]][0];
            }
            for (size_t j = 0; j < n; ++j)
                if (s->x[j] == want[0] && s->y[j] == want[1] && s->z[j] == want[2]) {
                    v->shift = j;
                    nb_variant_apply(v, known, scratch);
                    if (!memcmp(scratch->x, s->x, n * sizeof(float)) && !memcmp(scratch->vx, s->vx, n * sizeof(float)))
                        return 1;
                }
        }
    return 0;
}

/* The known answer, relabelled as the request was: the request's step and time kept. */
static void answer_as(nb_state *s, const nb_variant *v, const nb_state *answer)
{
    const uint64_t step = s->step;
    const double time = s->time;
    nb_variant_apply(v, answer, s);
    s->step = step;
    s->time = time;
}
