/* progress.h: one progress line on stderr for long phases, only when stderr is a terminal. */
#ifndef NB_PROGRESS_H
#define NB_PROGRESS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Start or rename the current phase ("fp64 reference", "repeat 2/3"). Shown once it has lasted
 * two seconds, refreshed twice a second, erased when the next phase starts or on nb_progress_done. */
void nb_progress(const char *phase);
void nb_progress_done(void);
/* Off for --quiet or when stderr is not a terminal (the default check). */
void nb_progress_enable(int on);

#ifdef __cplusplus
}
#endif
#endif
