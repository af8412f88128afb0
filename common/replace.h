/* replace.h: a file replaced whole. It is written to a temporary beside it (NAME.tmp.XXXXXX) and renamed
 * over NAME only once complete. While the temporary exists, SIGINT, SIGTERM and SIGHUP remove it before
 * the signal does what it did before (normally: end the program), so an interrupted run leaves nothing. */
#ifndef NB_REPLACE_H
#define NB_REPLACE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_replace {
    const char *path; /* the file replaced: the caller's string, kept until commit or discard */
    char *tmp;        /* the temporary, or NULL when none is open */
    int slot;         /* where the signal handler finds it, or -1 */
} nb_replace;

/* Create the temporary beside `path`, with the permission bits of the file it will replace (and, where
 * the program may set them, its owner and group), or 0644 for a new file. Returns its descriptor for the
 * caller to write, flush and close; or -1 after one line on stderr. */
int nb_replace_open(nb_replace *r, const char *path);
/* Rename the temporary (written and closed) over the path. 0, or NB_EXIT_ERROR after one line on stderr,
 * ended by `note` when it is not NULL; the temporary is gone either way. */
int nb_replace_commit(nb_replace *r, const char *note);
/* Remove the temporary (after a failed write, or when a later step of the run failed). */
void nb_replace_discard(nb_replace *r);

#ifdef __cplusplus
}
#endif
#endif
