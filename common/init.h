/* init.h: seeded initial conditions, the same on every machine. */
#ifndef NB_INIT_H
#define NB_INIT_H

#include "nbody.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_model {
    NB_MODEL_PLUMMER,   /* Plummer sphere, Aarseth-Henon-Wielen recipe, Henon units */
    NB_MODEL_UNIFORM,   /* positions and velocities uniform in [-1,1]^3 (the ECE415 reports: REFERENCES.md) */
    NB_MODEL_COLLISION, /* two Plummer spheres of half the mass on a collision course */
    NB_MODEL_HERNQUIST, /* Hernquist (1990) sphere, isotropic DF, a = 1/3, cut at 100 a: a dense centre (step13) */
    NB_MODEL_HERNQUIST_BH /* the same sphere around a central black hole, body 0, NB_BH_MASS of the mass (step13) */
} nb_model;

/* The Hernquist model as drawn: scale radius a (G = 1, M_model = 1 gives E = -1/4 untruncated), the cut
 * radius, and the model mass that leaves mass 1 inside the cut: M(<r) = NB_HERNQUIST_MASS r^2/(r+a)^2. */
#define NB_HERNQUIST_A (1.0 / 3.0)
#define NB_HERNQUIST_CUT (100.0 * NB_HERNQUIST_A)
#define NB_HERNQUIST_MASS (1.0 / ((NB_HERNQUIST_CUT / (NB_HERNQUIST_CUT + NB_HERNQUIST_A)) * \
                                 (NB_HERNQUIST_CUT / (NB_HERNQUIST_CUT + NB_HERNQUIST_A))))

/* The black hole of --model hernquist-bh: body 0 of each system, at rest at the centre, this fraction of the
 * system's mass (the bodies share the rest). Its potential makes the orbits about it the fastest of the
 * system, as in a galaxy's nucleus: the model whose energy error is set by a few bodies (step13's lesson). */
#define NB_BH_MASS 0.01

/* arcsin by its series in plain IEEE arithmetic (libm's asin may differ by an ulp), |x| <= 1. */
double nb_asin(double x);
/* ln x (x > 0) and e^y (y <= 0) the same way, for the Jeans velocities of hernquist-bh. */
double nb_log(double x);
double nb_exp(double y);

typedef enum nb_masses {
    NB_MASSES_EQUAL,    /* m = 1/N */
    NB_MASSES_RANDOM    /* m uniform in [0.5, 1.5), scaled to total 1: exposes m_i-for-m_j bugs */
} nb_masses;

/* The models' and the mass laws' names (--model, --masses, the results CSV), read both ways. */
extern const nb_word nb_model_words[];
extern const size_t nb_model_word_count;
extern const nb_word nb_masses_words[];
extern const size_t nb_masses_word_count;
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
