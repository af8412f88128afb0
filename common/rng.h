/* rng.h: the lab's random numbers, the same bits on every machine (xoshiro256** seeded by splitmix64). */
#ifndef NB_RNG_H
#define NB_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_rng {
    uint64_t s[4];
} nb_rng;

/* Independent stream `stream` of seed `seed` (system s of a run uses stream s). */
void nb_rng_seed(nb_rng *r, uint64_t seed, uint64_t stream);
uint64_t nb_rng_next(nb_rng *r);
/* Uniform in [0, 1), 53 random bits. */
double nb_rng_uniform(nb_rng *r);
/* Uniform in [lo, hi). */
double nb_rng_range(nb_rng *r, double lo, double hi);

#ifdef __cplusplus
}
#endif
#endif
