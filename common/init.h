/* init.h: seeded initial conditions, the same on every machine. */
#ifndef NB_INIT_H
#define NB_INIT_H

#include "nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_model {
    NB_MODEL_PLUMMER,   /* Plummer sphere, Aarseth-Henon-Wielen recipe, Henon units */
    NB_MODEL_UNIFORM,   /* positions and velocities uniform in [-1,1]^3 (the ECE415 reports: REFERENCES.md) */
    NB_MODEL_COLLISION  /* two Plummer spheres of half the mass on a collision course */
} nb_model;

typedef enum nb_masses {
    NB_MASSES_EQUAL,    /* m = 1/N */
    NB_MASSES_RANDOM    /* m uniform in [0.5, 1.5), scaled to total 1: exposes m_i-for-m_j bugs */
} nb_masses;

const char *nb_model_name(nb_model m);
const char *nb_masses_name(nb_masses m);

/* Fill an allocated state. System s draws from stream s of `seed`. */
void nb_init(nb_state *s, nb_model model, nb_masses masses, uint64_t seed);

/* Cube root by Newton's method in plain IEEE arithmetic (libm's cbrt may differ by an ulp). */
double nb_cbrt(double a);

#ifdef __cplusplus
}
#endif
#endif
