/* feature_probe.c: a step registered with the feature snapshots (FEATURES_99 in tests/tests.mk) that
 * moves nothing and emits its own snapshots, for make test. The judge must hand it the whole loop with
 * snapshot_every set, and write the views it emits; until 2026-11-22 the harness ran every step in
 * chunks instead (gcc had folded the weak default of a feature constant then read beside it). */
#include "nbody.h"
#include "util.h"

int nb_step_run(nb_state *s, const nb_run *run)
{
    if (run->steps > 1 && run->extra.snapshot_every == 0) {
        nb_error("feature probe: the judge ran the loop in chunks: it did not read the feature snapshots");
        return NB_EXIT_ERROR;
    }
    nb_region_begin(run);
    nb_region_end(run);
    for (uint64_t k = 1; run->extra.snapshot_every && k <= run->steps; ++k)
        if (k % run->extra.snapshot_every == 0) {
            nb_state view = *s;
            view.step = s->step + k;
            view.time = s->time + (double)k * run->dt;
            if (nb_snapshot_emit(run, &view) != NB_EXIT_OK)
                return NB_EXIT_ERROR;
        }
    return NB_EXIT_OK;
}
