/* rng.c: xoshiro256** (Blackman & Vigna), seeded through splitmix64. Integer arithmetic only,
 * so every machine draws the same numbers. */
#include "rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void nb_rng_seed(nb_rng *r, uint64_t seed, uint64_t stream)
{
    /* Mix the stream number in through its own splitmix draw so streams 0, 1, 2 are unrelated. */
    uint64_t t = stream;
    uint64_t x = seed ^ splitmix64(&t);
    for (int i = 0; i < 4; ++i)
        r->s[i] = splitmix64(&x);
}

uint64_t nb_rng_next(nb_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double nb_rng_uniform(nb_rng *r) { return (double)(nb_rng_next(r) >> 11) * 0x1.0p-53; }

double nb_rng_range(nb_rng *r, double lo, double hi) { return lo + (hi - lo) * nb_rng_uniform(r); }
