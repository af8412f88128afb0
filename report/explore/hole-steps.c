/* hole-steps.c: the energy error of step13's scheme about a black hole, in fp64 on the CPU (no tree, no
 * float): which of the block steps' choices the error at t = 1 follows.
 *
 *   hole-steps N SEED shared K               step12's scheme: K steps of dt = 1/K
 *   hole-steps N SEED blocks ETA PIN M [L [C]]  step13's: M steps of dt_max = 1/M, L levels (12), eta ETA;
 *       PIN 1 puts the hole on the deepest level in use at every step (nb_block_params); C the criterion:
 *       accel (step13's, the default), tidal or sum (nb_criterion)
 *
 * The sphere is --model hernquist-bh (eps 0.0025, equal masses, seed SEED), drawn at t = 0 and set half
 * the run's step back with its own fp64 forces (v - a dt/2, dt = 1/K or 1/M), so every run starts from
 * the drawn bodies; at t = 1 the velocities are brought forward the same way and the energy compared
 * with the drawn sphere's. One CSV line: n,seed,run,rel_energy_error,deepest,levels_pct (levels 0 ...
 * deepest, colon-separated),forces_per_body (the forces computed to t = 1 over N; K for shared steps).
 * Built and run by report/explore/hole-steps.sh. */
#include "init.h"
#include "nbody.h"
#include "reference.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 0.0025
#define LEVELS 12 /* unless the run names its own */

static double energy(const nb_state64 *s)
{
    nb_diag d;
    nb_diagnostics(s, EPS * EPS, &d);
    return d.energy;
}

int main(int argc, char **argv)
{
    nb_set_progname("hole-steps");
    const int shared = argc == 5 && strcmp(argv[3], "shared") == 0;
    const int blocks = argc >= 7 && argc <= 9 && strcmp(argv[3], "blocks") == 0;
    if (!shared && !blocks) {
        nb_error("usage: hole-steps N SEED shared K | hole-steps N SEED blocks ETA PIN M [LEVELS [accel|tidal|sum]]");
        return NB_EXIT_ERROR;
    }
    const char *const criteria[] = {"accel", "tidal", "sum"}; /* nb_criterion's order */
    int criterion = argc == 9 ? -1 : NB_CRITERION_ACCEL;
    for (int c = 0; argc == 9 && c < 3; ++c)
        if (strcmp(argv[8], criteria[c]) == 0)
            criterion = c;
    if (criterion < 0) {
        nb_error("no criterion '%s' (accel, tidal or sum)", argv[8]);
        return NB_EXIT_ERROR;
    }
    const long n = atol(argv[1]), seed = atol(argv[2]), k = atol(argv[shared ? 4 : 6]);
    const double eta = blocks ? atof(argv[4]) : 0.0;
    const int pin = blocks ? atoi(argv[5]) : 0;
    const long levels = argc >= 8 ? atol(argv[7]) : LEVELS;
    if (n < 2 || n > 1 << 20 || seed < 0 || k < 1 || k > 1 << 16 || (blocks && !(eta > 0.0)) || levels < 1 ||
        levels > NB_LEVELS_MAX) {
        nb_error("N in 2..2^20, SEED >= 0, K or M in 1..65536, ETA > 0, LEVELS in 1..%d", NB_LEVELS_MAX);
        return NB_EXIT_ERROR;
    }
    nb_state drawn;
    nb_state64 s;
    if (nb_state_alloc(&drawn, 1, (size_t)n) != NB_EXIT_OK || nb_state64_alloc(&s, 1, (size_t)n) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_init(&drawn, NB_MODEL_HERNQUIST_BH, NB_MASSES_EQUAL, (uint64_t)seed);
    nb_state64_from(&s, &drawn);
    const double e0 = energy(&s), dt = 1.0 / (double)k;
    if (nb_ref_kick(&s, EPS * EPS, -0.5 * dt) != NB_EXIT_OK) /* half a step back */
        return NB_EXIT_ERROR;
    nb_block_stats stats;
    memset(&stats, 0, sizeof stats);
    const nb_block_params p = {(unsigned)levels, eta, EPS, 0, 0.0, pin, (nb_criterion)criterion};
    const int rc = shared ? nb_ref_run(&s, (uint64_t)k, dt, EPS * EPS)
                          : nb_ref_run_blocks(&s, (uint64_t)k, dt, EPS * EPS, &p, NULL, &stats);
    if (rc != NB_EXIT_OK || nb_ref_kick(&s, EPS * EPS, 0.5 * dt) != NB_EXIT_OK) /* and to t = 1 */
        return NB_EXIT_ERROR;
    const double e1 = energy(&s);
    printf("%ld,%ld,%s%s%s%s%s%s%s%s%s,%.6e,%u,", n, seed, argv[3], blocks ? " eta " : " 1/", argv[4],
           blocks ? (pin ? " pinned 1/" : " 1/") : "", blocks ? argv[6] : "", argc >= 8 ? " levels " : "",
           argc >= 8 ? argv[7] : "", argc == 9 ? " " : "", argc == 9 ? argv[8] : "", (e1 - e0) / fabs(e0),
           stats.deepest);
    const double total = blocks ? (double)n * (double)k : 1.0;
    for (unsigned l = 0; l <= stats.deepest; ++l)
        printf(l ? ":%.3g" : "%.3g", blocks ? 100.0 * (double)stats.on_level[l] / total : 100.0);
    printf(",%.1f\n", blocks ? (double)stats.forces / (double)n : (double)k);
    nb_state_free(&drawn);
    nb_state64_free(&s);
    return NB_EXIT_OK;
}
