/* state.c: allocating and copying the host state (structure of arrays, one block). */
#include "nbody.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int nb_state_alloc(nb_state *s, size_t systems, size_t bodies)
{
    memset(s, 0, sizeof *s);
    uint64_t count, bytes;
    if (nb_mul_overflows(systems, bodies, &count) || nb_mul_overflows(count, NB_FIELDS * sizeof(float), &bytes)) {
        nb_error("%zu systems of %zu bodies do not fit in memory", systems, bodies);
        return NB_EXIT_ERROR;
    }
    /* One block for all seven arrays: one allocation to check, one to free. */
    float *block = (float *)nb_malloc((size_t)bytes, "the bodies");
    if (!block)
        return NB_EXIT_ERROR;
    s->systems = systems;
    s->bodies = bodies;
    float **field[NB_FIELDS] = {&s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz, &s->m};
    for (int k = 0; k < NB_FIELDS; ++k)
        *field[k] = block + (size_t)k * count;
    return NB_EXIT_OK;
}

void nb_state_free(nb_state *s)
{
    free(s->x);
    memset(s, 0, sizeof *s);
}

size_t nb_state_count(const nb_state *s) { return s->systems * s->bodies; }

float *nb_state_field(const nb_state *s, int k)
{
    float *const field[NB_FIELDS] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->m};
    return field[k];
}

void nb_state_copy(nb_state *dst, const nb_state *src)
{
    const size_t n = nb_state_count(src);
    for (int k = 0; k < NB_FIELDS; ++k)
        memcpy(nb_state_field(dst, k), nb_state_field(src, k), n * sizeof(float));
    dst->step = src->step;
    dst->time = src->time;
}
