/* feature_probe.c: a step that declares NB_FEATURE_SNAPSHOTS and does nothing else, for make test.
 * The harness must hand it the whole loop with snapshot_every set; until 2026-11-22 it ran every step
 * in chunks instead (gcc had folded the weak default of nb_step_features, then beside its reader). */
#include "nbody.h"
#include "util.h"

const unsigned nb_step_features = NB_FEATURE_SNAPSHOTS;

int nb_step_run(nb_state *s, const nb_run *run)
{
    (void)s;
    if (run->extra.sink && run->extra.snapshot_every == 0) {
        nb_error("feature probe: the harness ran the loop in chunks: it did not see NB_FEATURE_SNAPSHOTS");
        return NB_EXIT_ERROR;
    }
    nb_region_begin(run);
    nb_region_end(run);
    return NB_EXIT_OK;
}
