/* stagger.c: a drawn state set half a step back, so that a run of that step starts from it.
 *
 *   stagger DT SYNC KICKED OUT
 *
 * SYNC holds a state whose velocities are at its positions' time (a model drawn with a tiny --dt).
 * The contract reads a file's velocities as v(t - dt/2) (common/README.md): a run of step DT from SYNC
 * would start from v + a DT/2, which for DT = 1/16 heats a cusp's centre (7.9 % of |E| at N = 16384 about a
 * black hole). KICKED is SYNC after one step of dt = 1 by any step, so its velocities are v + a, with the
 * step's own forces; OUT gets SYNC's positions and v - (DT/2) a, and DT in its header. A run of DT from
 * OUT, and diag of OUT, then start from SYNC's velocities (up to the forces' own error times DT/2).
 * Exit status: 0, or 2 after one line on stderr; nothing is written then. */
#define _POSIX_C_SOURCE 200809L
#include "nbody.h"
#include "snapshot.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    nb_set_progname("stagger");
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: stagger DT SYNC KICKED OUT\n"
               "OUT = SYNC with velocities v - (DT/2) a and DT in its header, a from KICKED (SYNC after one\n"
               "step of dt = 1: velocities v + a): the contract's v(t - DT/2) for SYNC's state at t.\n");
        return NB_EXIT_OK;
    }
    if (argc != 5) {
        nb_error("usage: stagger DT SYNC KICKED OUT (try --help)");
        return NB_EXIT_ERROR;
    }
    char *end = NULL;
    const double dt = strtod(argv[1], &end);
    if (end == argv[1] || *end != '\0' || !(dt > 0.0) || !isfinite(dt)) {
        nb_error("DT %s: a positive number (the step the run will take)", argv[1]);
        return NB_EXIT_ERROR;
    }
    nb_state64 sync, kicked;
    nb_snapshot_info si, ki;
    if (nb_snapshot_read64(argv[2], &sync, &si) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    if (nb_snapshot_read64(argv[3], &kicked, &ki) != NB_EXIT_OK) {
        nb_state64_free(&sync);
        return NB_EXIT_ERROR;
    }
    int bad = 0;
    if (ki.systems != si.systems || ki.bodies != si.bodies) {
        nb_error("%s: %llu systems of %llu bodies, but %s has %llu of %llu: not the same state", argv[3],
                 (unsigned long long)ki.systems, (unsigned long long)ki.bodies, argv[2],
                 (unsigned long long)si.systems, (unsigned long long)si.bodies);
        bad = 1;
    } else if (ki.dt != 1.0 || ki.step != si.step + 1) {
        nb_error("%s: step %llu of dt %g, but stagger wants %s after one step of dt = 1 (step %llu)", argv[3],
                 (unsigned long long)ki.step, ki.dt, argv[2], (unsigned long long)si.step + 1);
        bad = 1;
    } else if (ki.eps != si.eps) {
        nb_error("%s: eps %g, but %s has %g: its forces are another softening's", argv[3], ki.eps, argv[2], si.eps);
        bad = 1;
    }
    const size_t total = si.systems * si.bodies;
    for (size_t i = 0; !bad && i < total; ++i)
        if (kicked.m[i] != sync.m[i]) {
            nb_error("%s: body %zu weighs %g, but %g in %s: not the same bodies", argv[3], i, kicked.m[i], sync.m[i],
                     argv[2]);
            bad = 1;
        }
    nb_state s;
    if (!bad && nb_state_alloc(&s, si.systems, si.bodies) != NB_EXIT_OK)
        bad = 1;
    if (bad) {
        nb_state64_free(&sync);
        nb_state64_free(&kicked);
        return NB_EXIT_ERROR;
    }
    const double half = 0.5 * dt;
    const double *v[3] = {sync.vx, sync.vy, sync.vz}, *w[3] = {kicked.vx, kicked.vy, kicked.vz};
    const double *x[3] = {sync.x, sync.y, sync.z};
    float *out_x[3] = {s.x, s.y, s.z}, *out_v[3] = {s.vx, s.vy, s.vz};
    for (size_t i = 0; i < total; ++i) {
        for (int d = 0; d < 3; ++d) {
            out_x[d][i] = (float)x[d][i];
            out_v[d][i] = (float)(v[d][i] - half * (w[d][i] - v[d][i])); /* a = w - v: one step of dt = 1 */
        }
        s.m[i] = (float)sync.m[i];
    }
    s.step = sync.step;
    s.time = sync.time;
    const int rc = nb_snapshot_write(argv[4], &s, si.eps, dt);
    nb_state_free(&s);
    nb_state64_free(&sync);
    nb_state64_free(&kicked);
    return rc;
}
