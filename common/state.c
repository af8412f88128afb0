/* state.c: allocating and copying the host state (structure of arrays, one block). */
#include "nbody.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Floats from one array's start to the next: whole 4 KiB pages and one 64-byte line more. Every array
 * starts on a cache line (a SIMD vector of 8 or 16 floats loads without a line split), and each one
 * line further into the page than the last (x[j], y[j], z[j] and m[j] would otherwise fall in the
 * same L1 set: the same offset in a 4 KiB page). At most 4 KiB more per array. */
static uint64_t nb_state_pitch(uint64_t count) { return (count + 1023) / 1024 * 1024 + 16; }

int nb_state_alloc(nb_state *s, size_t systems, size_t bodies)
{
    memset(s, 0, sizeof *s);
    uint64_t count, bytes;
    if (nb_mul_overflows(systems, bodies, &count) || count > UINT64_MAX / 2 ||
        nb_mul_overflows(nb_state_pitch(count), NB_FIELDS * sizeof(float), &bytes) || bytes > SIZE_MAX) {
        nb_error("%zu systems of %zu bodies do not fit in memory", systems, bodies);
        return NB_EXIT_ERROR;
    }
    /* One block for all seven arrays: one allocation to check, one to free. */
    float *block = (float *)nb_malloc_lines((size_t)bytes, "the bodies");
    if (!block)
        return NB_EXIT_ERROR;
    s->systems = systems;
    s->bodies = bodies;
    float **field[NB_FIELDS] = {&s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz, &s->m};
    for (int k = 0; k < NB_FIELDS; ++k)
        *field[k] = block + (size_t)k * nb_state_pitch(count);
    return NB_EXIT_OK;
}

void nb_state_free(nb_state *s)
{
    nb_free_lines(s->x);
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
