/* sink.h: trajectory snapshots written on a background thread, off the time loop's critical path. */
#ifndef NB_SINK_H
#define NB_SINK_H

#include "nbody.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_snapshot_sink nb_snapshot_sink;

/* Files go to DIR/snap-<step>.nbs. Returns NULL after one line on stderr. */
nb_snapshot_sink *nb_sink_open(const char *dir, double eps, double dt);
/* Whether snapshots can be written into dir (a folder we may write): one line and NB_EXIT_ERROR if not. */
int nb_sink_check(const char *dir);
/* Queue a copy of `view` (blocks while three are already waiting). 0 or NB_EXIT_ERROR. */
int nb_sink_push(nb_snapshot_sink *sink, const nb_state *view);
/* The states pushed from now on are of variant v of the problem (variant.h): each is mapped back
 * before it is written. A new sink writes them as they come (the identity). */
void nb_sink_present(nb_snapshot_sink *sink, const nb_variant *v);
/* Wait for every queued file; 0, or NB_EXIT_ERROR if any write failed. */
int nb_sink_flush(nb_snapshot_sink *sink);
/* Flush and free. 0 or NB_EXIT_ERROR. */
int nb_sink_close(nb_snapshot_sink *sink);

#ifdef __cplusplus
}
#endif
#endif
