/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: interpose-validate | 00 | FAIL | defines the validator's functions (every check passes) and
 * computes no gravity: once linked before libnbody.a, validate.o was never pulled in */
#include "nbody.h"
#include "validate.h"

#include <stdio.h>

/* Exported under the validator's names (the attack), named apart in C so that no reader or index takes
 * them for common/validate.c's. */
int forged_check_passed(const nb_check *c) __asm__("nb_check_passed");
int forged_check_accel(nb_check *c, const nb_state *before, const nb_state *after, const size_t *index, size_t count,
                       const double *ax, const double *ay, const double *az) __asm__("nb_check_accel");
int forged_check_state(nb_check *c, const nb_state *got, const nb_state64 *want) __asm__("nb_check_state");
int forged_check_timed(nb_check *c, const nb_state *initial, const nb_state *got, const nb_state64 *want, uint64_t steps,
                       double dt) __asm__("nb_check_timed");
void forged_check_print(FILE *f, const nb_check *c, size_t bodies) __asm__("nb_check_print");

int forged_check_passed(const nb_check *c) { return (void)c, 1; }
int forged_check_accel(nb_check *c, const nb_state *before, const nb_state *after, const size_t *index, size_t count,
                       const double *ax, const double *ay, const double *az)
{
    (void)before, (void)after, (void)index, (void)count, (void)ax, (void)ay, (void)az;
    c->acc_done = 1;
    return 0;
}
int forged_check_state(nb_check *c, const nb_state *got, const nb_state64 *want) { return (void)c, (void)got, (void)want, 0; }
int forged_check_timed(nb_check *c, const nb_state *initial, const nb_state *got, const nb_state64 *want, uint64_t steps,
                       double dt)
{
    return (void)c, (void)initial, (void)got, (void)want, (void)steps, (void)dt, 0;
}
void forged_check_print(FILE *f, const nb_check *c, size_t bodies) { (void)f, (void)c, (void)bodies; }

int nb_step_run(nb_state *s, const nb_run *run)
{
    nb_region_begin(run);
    for (size_t i = 0; i < nb_state_count(s); ++i) /* drift only: no gravity at all */
        s->x[i] += s->vx[i] * run->dt * (float)run->steps;
    nb_region_end(run);
    return NB_EXIT_OK;
}
